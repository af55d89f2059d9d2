//! The charset decision (src/charset/decide.rs) on texts generated from a
//! model of real mail: damage (a cut at the end, a stray octet, a lost
//! octet, a line in windows-1252) keeps its label and every undamaged line;
//! a label that cannot decode the text is seen and the text recovered;
//! UTF-8 under single-byte labels is UTF-8; binary is not text. encoding_rs
//! is the oracle for the encodings and for whether damage is detectable.
//! The regressions at the end are the cases of issue 13, through the
//! library and the command line.

use encoding_rs::Encoding;
use mailcharset::charset::{self, DecodeOptions};
use mailcharset::finding::{FindingKind, Verdict};
use mailcharset::normalize::{self, Options};
use proptest::prelude::*;
use std::io::Write;
use std::process::{Command, Stdio};

/// Words of each language, as a writer would use them.
const JAPANESE: &[&str] = &[
    "日本語",
    "のテキスト",
    "です。",
    "よろしく",
    "お願いします。",
    "会議は",
    "明日の",
    "午後",
    "三時から",
    "始まります。",
    "資料を",
    "送ります。",
    "メール",
    "ありがとう",
    "ございました。",
];
const CHINESE: &[&str] = &[
    "这是",
    "一个",
    "中文",
    "文本",
    "，",
    "谢谢",
    "你的",
    "帮助",
    "。",
    "会议",
    "明天",
    "下午",
    "开始",
    "我们",
    "讨论",
    "问题",
    "请",
    "查看",
    "附件",
    "中的",
    "报告",
    "如果",
    "有",
    "任何",
    "疑问",
    "随时",
    "联系",
    "项目",
    "进度",
    "已经",
    "完成",
    "大部分",
    "工作",
    "下周",
    "发布",
    "新",
    "版本",
    "客户",
    "反馈",
    "很好",
];
const TRADITIONAL: &[&str] = &[
    "這是", "一個", "中文", "文字", "，", "謝謝", "你的", "幫助", "。", "會議", "明天", "下午",
    "開始", "我們", "討論", "問題",
];
const KOREAN: &[&str] = &[
    "안녕하세요",
    "한국어",
    "텍스트",
    "입니다.",
    "회의는",
    "내일",
    "오후",
    "세시에",
    "시작합니다.",
    "감사합니다.",
    "자료를",
    "보내드립니다.",
];
const RUSSIAN: &[&str] = &[
    "Привет,",
    "как",
    "дела?",
    "Всё",
    "хорошо.",
    "Съешь",
    "же",
    "ещё",
    "этих",
    "мягких",
    "французских",
    "булок",
    "да",
    "выпей",
    "чаю.",
    "Встреча",
    "завтра",
];
const GREEK: &[&str] = &[
    "Καλημέρα",
    "σας,",
    "τι",
    "κάνετε;",
    "Η",
    "συνάντηση",
    "είναι",
    "αύριο",
    "το",
    "απόγευμα.",
    "Ευχαριστώ",
    "πολύ.",
];
const FRENCH: &[&str] = &[
    "Voilà",
    "déjà",
    "l'été,",
    "ça",
    "va",
    "très",
    "bien.",
    "À",
    "bientôt,",
    "la",
    "réunion",
    "est",
    "prévue",
    "après",
    "Noël",
    "chez",
    "François.",
];
/// Western European words with the accented letters of their languages
/// (German, Spanish, Portuguese, Italian, Danish, Norwegian, Swedish,
/// Finnish, Icelandic), pairs of them included ("ação", "þjóð").
const WESTERN: &[&str] = &[
    "Größe",
    "Grüße",
    "Mädchen",
    "España",
    "¿Qué",
    "tal?",
    "mañana",
    "informação",
    "ações",
    "não",
    "perché",
    "città",
    "blåbærsyltetøj",
    "smørrebrød",
    "Århus",
    "Hyvää",
    "päivää",
    "Þjóðólfur",
    "Ísland",
    "æðarfugl",
    "röksmörgås",
    "über",
];
const ASCII_WORDS: &[&str] = &[
    "the", "meeting", "is", "at", "3pm", "OK", "--", "re:", "2024",
];

/// A text of `lines` lines of words from `words` (with some ASCII), each
/// line ending in LF. Chinese and Japanese are written without spaces
/// between words, as they are.
fn text_strategy(words: &'static [&'static str]) -> impl Strategy<Value = Vec<String>> {
    let spaced = !(std::ptr::eq(words, JAPANESE)
        || std::ptr::eq(words, CHINESE)
        || std::ptr::eq(words, TRADITIONAL));
    let line = prop::collection::vec((0..words.len(), 0..ASCII_WORDS.len(), 0..4u8), 3..9)
        .prop_map(move |ws| {
            let mut l = String::new();
            for (k, (w, a, mix)) in ws.into_iter().enumerate() {
                if k > 0 && spaced {
                    l.push(' ');
                }
                l.push_str(words[w]);
                if mix == 0 {
                    l.push(' ');
                    l.push_str(ASCII_WORDS[a]);
                    l.push(' ');
                }
            }
            l
        });
    prop::collection::vec(line, 3..10)
}

fn encode(text: &str, enc: &'static Encoding) -> Vec<u8> {
    let (b, _, unmappable) = enc.encode(text);
    assert!(!unmappable, "{} cannot encode the test text", enc.name());
    b.into_owned()
}

/// Encodes each line (with its LF) separately, so that damage can be put
/// on one line; ISO-2022-JP returns to ASCII before each line end.
fn encode_lines(lines: &[String], enc: &'static Encoding) -> Vec<Vec<u8>> {
    lines
        .iter()
        .map(|l| {
            let mut b = encode(l, enc);
            b.push(b'\n');
            b
        })
        .collect()
}

#[derive(Clone, Copy, Debug)]
enum Damage {
    /// The text ends inside its last character.
    Cut,
    /// A stray octet inside a line.
    Stray(u8),
    /// One octet of a multi-octet character lost.
    Lost,
    /// A line written in windows-1252.
    Latin1Line,
}

fn damage_strategy() -> impl Strategy<Value = Damage> {
    prop_oneof![
        Just(Damage::Cut),
        prop::sample::select(vec![0xFFu8, 0x80, 0xC0, 0xFE]).prop_map(Damage::Stray),
        Just(Damage::Lost),
        Just(Damage::Latin1Line),
    ]
}

/// Applies damage to line `at` (or to the end). Returns whether the line
/// is damaged (the caller must not expect it back).
fn apply(lines: &mut [Vec<u8>], at: usize, d: Damage, seed: usize) {
    let line = &mut lines[at];
    let body_len = line.len() - 1; // without LF
    let nonascii: Vec<usize> = (0..body_len).filter(|&i| line[i] >= 0x80).collect();
    match d {
        Damage::Cut => {
            // Handled by the caller on the last line.
        }
        Damage::Stray(b) => {
            let pos = seed % body_len.max(1);
            // Between two characters: after an ASCII octet when there is one.
            let pos = (pos..body_len)
                .find(|&i| line[i].is_ascii())
                .map_or(0, |i| i + 1);
            line.insert(pos, b);
        }
        Damage::Lost => {
            if let Some(&i) = nonascii.get(seed % nonascii.len().max(1)) {
                line.remove(i);
            }
        }
        Damage::Latin1Line => {
            let mut l = encode(LATIN1_LINE, encoding_rs::WINDOWS_1252);
            l.push(b'\n');
            *line = l;
        }
    }
}

/// The line [`Damage::Latin1Line`] writes in windows-1252.
const LATIN1_LINE: &str = "Signature: José Müller, Café crème à Zürich";

struct Case {
    bytes: Vec<u8>,
    /// The original text of each line (with LF), None where damaged.
    expect: Vec<Option<String>>,
    /// Lines replaced by [`LATIN1_LINE`] in windows-1252 (and not cut).
    latin1: usize,
    /// Whether those lines are below every other line with 8-bit octets.
    latin1_below: bool,
}

fn damaged_case(lines: &[String], enc: &'static Encoding, damages: &[(Damage, usize)]) -> Case {
    let mut enc_lines = encode_lines(lines, enc);
    let mut expect: Vec<Option<String>> = lines.iter().map(|l| Some(format!("{l}\n"))).collect();
    let n = enc_lines.len();
    for (k, &(d, seed)) in damages.iter().enumerate() {
        if let Damage::Cut = d {
            continue;
        }
        // Distinct lines, the last one kept for a cut.
        let at = (seed + k * 3) % (n - 1);
        apply(&mut enc_lines, at, d, seed);
        expect[at] = None;
    }
    let latin1_line = [
        encode(LATIN1_LINE, encoding_rs::WINDOWS_1252),
        b"\n".to_vec(),
    ]
    .concat();
    let mut bytes: Vec<u8> = enc_lines.concat();
    if damages.iter().any(|d| matches!(d.0, Damage::Cut)) {
        // Drop the LF and the last octet of the last character (ISO-2022-JP
        // would end in an escape sequence, not in a character: cut there too).
        bytes.pop();
        let last = bytes.iter().rposition(|&b| b >= 0x80 || b == 0x1B);
        if let Some(i) = last {
            bytes.truncate(i + usize::from(bytes[i] == 0x1B));
        }
        // The lines from the one cut on are gone or damaged.
        let kept = bytes.iter().filter(|&&b| b == b'\n').count();
        for e in &mut expect[kept..] {
            *e = None;
        }
    }
    let all: Vec<&[u8]> = bytes.split_inclusive(|&b| b == b'\n').collect();
    let is_latin1 = |l: &[u8]| l == &latin1_line[..];
    let latin1 = all.iter().filter(|l| is_latin1(l)).count();
    let latin1_below = all
        .iter()
        .skip_while(|l| !is_latin1(l))
        .all(|l| is_latin1(l) || l.is_ascii());
    Case {
        bytes,
        expect,
        latin1,
        latin1_below,
    }
}

fn body_opts() -> DecodeOptions {
    DecodeOptions {
        body: true,
        ..DecodeOptions::default()
    }
}

/// The `mixed-charset` finding of a decoded text; there must be one.
fn mixed_finding<'a>(d: &'a charset::Decoded<'_>) -> &'a mailcharset::finding::Finding {
    d.findings
        .iter()
        .find(|f| f.kind == FindingKind::MixedCharset)
        .expect("mixed-charset")
}

/// The decoded text's lines, each with its LF.
fn split_lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

fn check_damaged(case: &Case, label: &str, enc: &'static Encoding) -> Result<(), TestCaseError> {
    // Damage that left none of the label's text (every line with its
    // characters replaced or cut) makes another text, not a damaged one.
    prop_assume!(case.expect.iter().flatten().any(|l| !l.is_ascii()));
    let d = charset::decode(&case.bytes, Some(label.as_bytes()), &body_opts());
    let oracle_errors = enc
        .decode_without_bom_handling_and_without_replacement(&case.bytes)
        .is_none();
    let expected = if oracle_errors {
        Verdict::Invalid
    } else {
        Verdict::Ok
    };
    prop_assert_eq!(
        d.used.map(|c| c.decoder_name()),
        Some(charset::Charset::for_label(label.as_bytes()).and_then(|c| c.decoder_name())),
        "the label's decoder must stay: {:?}",
        d.findings
    );
    // Lines in windows-1252 read as such (`mixed-charset`, "read as
    // such"), and when nothing else was damaged the verdict is
    // `suspicious`. Under UTF-8 they are, each as written, when they are
    // below the text (six Latin letters in words on a line of their own);
    // among its lines they are U+FFFD, as damage would be. (A legacy CJK
    // label reads some of such a line, and keeps it.)
    let read_mixed = d.findings.iter().any(|f| {
        f.kind == FindingKind::MixedCharset
            && f.note
                .as_deref()
                .is_some_and(|n| n.ends_with("read as such"))
    });
    if case.latin1 > 0 && enc == encoding_rs::UTF_8 {
        prop_assert_eq!(
            read_mixed,
            case.latin1_below,
            "the Latin-1 line read or not: {:?}",
            d.findings
        );
    }
    if read_mixed && enc == encoding_rs::UTF_8 {
        let latin = format!("{LATIN1_LINE}\n");
        prop_assert_eq!(
            split_lines(&d.text).iter().filter(|l| **l == latin).count(),
            case.latin1,
            "{:?}",
            d.text
        );
    }
    prop_assert!(
        d.verdict == expected
            || (d.verdict == Verdict::Suspicious
                && (!oracle_errors || (read_mixed && d.replacements == 0))),
        "verdict {:?}, expected {:?}: {:?}",
        d.verdict,
        expected,
        d.findings
    );
    // Every undamaged line, in order (a damaged escape sequence in
    // ISO-2022-JP may swallow a line end, so lines are matched, not indexed).
    let got = split_lines(&d.text);
    let mut at = 0;
    for (k, want) in case.expect.iter().enumerate() {
        if let Some(want) = want {
            let found = got[at..].iter().position(|l| l == want);
            prop_assert!(
                found.is_some(),
                "line {} changed: {:?}; input {:?}; output {:?}",
                k,
                want,
                String::from_utf8_lossy(&case.bytes),
                d.text
            );
            at += found.unwrap_or(0) + 1;
        }
    }
    Ok(())
}

/// `lines` written in `enc` under `label` (which cannot decode them): the
/// verdict is `mislabeled` and the text comes back whole. One to three
/// 8-bit octets are no evidence (damage looks the same), and telling CJK
/// charsets apart needs some text (chardetng guesses Big5 for three GBK
/// words as readily as GBK): such cases are passed over.
fn lie_is_seen_and_text_recovered(
    lines: &[String],
    enc: &'static Encoding,
    label: &str,
) -> Result<(), TestCaseError> {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let bytes = encode(&text, enc);
    let eight = bytes.iter().filter(|b| !b.is_ascii()).count();
    prop_assume!(eight >= 4 && (enc.is_single_byte() || enc == encoding_rs::UTF_8 || eight >= 40));
    let d = charset::decode(&bytes, Some(label.as_bytes()), &body_opts());
    prop_assert_eq!(
        d.verdict,
        Verdict::Mislabeled,
        "{} under {}: {:?}",
        enc.name(),
        label,
        d.findings
    );
    prop_assert!(d.findings.iter().any(|f| f.kind == FindingKind::Mislabeled));
    prop_assert_eq!(&*d.text, text.as_str(), "{} under {}", enc.name(), label);
    Ok(())
}

fn damages() -> impl Strategy<Value = Vec<(Damage, usize)>> {
    prop::collection::vec((damage_strategy(), any::<usize>()), 1..=3)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn damaged_utf8_keeps_its_label_and_its_lines(
        lines in prop_oneof![text_strategy(JAPANESE), text_strategy(RUSSIAN), text_strategy(FRENCH), text_strategy(GREEK)],
        d in damages(),
    ) {
        let case = damaged_case(&lines, encoding_rs::UTF_8, &d);
        check_damaged(&case, "utf-8", encoding_rs::UTF_8)?;
    }

    #[test]
    fn damaged_japanese_keeps_its_label_and_its_lines(
        lines in text_strategy(JAPANESE),
        d in damages(),
        which in 0..3usize,
    ) {
        let (label, enc) = [
            ("shift_jis", encoding_rs::SHIFT_JIS),
            ("euc-jp", encoding_rs::EUC_JP),
            ("iso-2022-jp", encoding_rs::ISO_2022_JP),
        ][which];
        let case = damaged_case(&lines, enc, &d);
        check_damaged(&case, label, enc)?;
    }

    #[test]
    fn damaged_chinese_and_korean_keep_their_label_and_their_lines(
        d in damages(),
        which in 0..3usize,
        seed in any::<u64>(),
    ) {
        let (label, enc, words) = [
            ("gbk", encoding_rs::GBK, CHINESE),
            ("big5", encoding_rs::BIG5, TRADITIONAL),
            ("euc-kr", encoding_rs::EUC_KR, KOREAN),
        ][which];
        let lines: Vec<String> = (0..5)
            .map(|k| {
                (0..6)
                    .map(|j| words[((seed >> ((k * 6 + j) % 60)) as usize + k * 7 + j * 3) % words.len()])
                    .collect::<Vec<_>>()
                    .join(if which == 2 { " " } else { "" })
            })
            .collect();
        let case = damaged_case(&lines, enc, &d);
        check_damaged(&case, label, enc)?;
    }

    #[test]
    fn a_label_that_cannot_decode_the_text_is_seen_and_the_text_recovered(
        which in 0..9usize,
        ru in text_strategy(RUSSIAN),
        el in text_strategy(GREEK),
        fr in text_strategy(FRENCH),
        ja in text_strategy(JAPANESE),
        zh in text_strategy(CHINESE),
        ko in text_strategy(KOREAN),
    ) {
        let (lines, enc, label) = match which {
            0 => (ru.clone(), encoding_rs::WINDOWS_1251, "utf-8"),
            1 => (ru, encoding_rs::KOI8_R, "utf-8"),
            2 => (el, encoding_rs::ISO_8859_7, "utf-8"),
            3 => (fr.clone(), encoding_rs::WINDOWS_1252, "utf-8"),
            4 => (ja.clone(), encoding_rs::SHIFT_JIS, "utf-8"),
            5 => (zh, encoding_rs::GBK, "utf-8"),
            6 => (ko, encoding_rs::EUC_KR, "utf-8"),
            7 => (ja, encoding_rs::SHIFT_JIS, "euc-jp"),
            _ => (fr, encoding_rs::WINDOWS_1252, "us-ascii"),
        };
        lie_is_seen_and_text_recovered(&lines, enc, label)?;
    }

    #[test]
    fn western_text_under_its_label_is_kept(
        label in prop::sample::select(vec!["iso-8859-1", "windows-1252", "iso-8859-15"]),
        fr in text_strategy(FRENCH),
        we in text_strategy(WESTERN),
        french in any::<bool>(),
    ) {
        let lines = if french { fr } else { we };
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let enc = Encoding::for_label(label.as_bytes()).unwrap_or(encoding_rs::WINDOWS_1252);
        let (bytes, _, unmappable) = enc.encode(&text);
        prop_assert!(!unmappable);
        let d = charset::decode(&bytes, Some(label.as_bytes()), &body_opts());
        prop_assert_eq!(d.verdict, Verdict::Ok, "{}: {:?}", label, d.findings);
        prop_assert_eq!(&*d.text, text.as_str(), "{}", label);
    }

    #[test]
    fn utf8_under_a_single_byte_label_is_utf8(
        which in 0..6usize,
        ru in text_strategy(RUSSIAN),
        el in text_strategy(GREEK),
        fr in text_strategy(FRENCH),
        ja in text_strategy(JAPANESE),
    ) {
        let (lines, label) = match which {
            0 => (fr, "windows-1252"),
            1 => (ru.clone(), "windows-1251"),
            2 => (ru, "koi8-r"),
            3 => (el, "iso-8859-7"),
            4 => (ja.clone(), "x-mac-cyrillic"),
            _ => (ja, "iso-8859-1"),
        };
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let d = charset::decode(text.as_bytes(), Some(label.as_bytes()), &body_opts());
        prop_assert_eq!(d.verdict, Verdict::Mislabeled, "UTF-8 under {}: {:?}", label, d.findings);
        prop_assert_eq!(&*d.text, text.as_str());
    }

    #[test]
    fn binary_under_a_text_label_is_kept_byte_for_byte(
        content in prop::collection::vec(any::<u8>(), 13..400),
        nul_at in any::<prop::sample::Index>(),
        label in prop::sample::select(vec!["us-ascii", "utf-8", "windows-1252", "iso-8859-1", "bogus"]),
    ) {
        let mut content = content;
        let at = nul_at.index(content.len());
        content[at] = 0;
        // A NUL with only white space, NULs and a final SUB after it is a
        // mailer's padding after text, not binary (doc/charset-decision.md;
        // `regression_trailing_nul_padding_is_not_binary`): binary content
        // goes on after its NUL.
        content.push(0xFF);
        // Not UTF-16/32 shaped by chance: text/* binary parts are kept either way.
        let msg = [
            format!("From: a@example.com\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset={label}\r\nContent-Transfer-Encoding: binary\r\n\r\n").into_bytes(),
            content,
        ].concat();
        let n = normalize::normalize(&msg, &Options::default()).expect("never fails by default");
        prop_assert_eq!(&*n.bytes, &msg[..]);
    }
}

// --- Regressions: the cases of issue 13, library and command line. ---

/// Found by `binary_under_a_text_label_is_kept_byte_for_byte` before its
/// generator kept the NUL inside the content: text whose only NUL ends it
/// is text with padding (not a binary part), read under its label and
/// written as UTF-8, the NUL kept (base64, since quoted-printable cannot
/// carry it).
#[test]
fn regression_trailing_nul_padding_is_not_binary() {
    let body: &[u8] = b"\t\x1b\t \x1b      \x80\x00";
    let msg = [
        &b"From: a@example.com\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=us-ascii\r\nContent-Transfer-Encoding: binary\r\n\r\n"[..],
        body,
    ]
    .concat();
    let d = charset::decode(body, Some(b"us-ascii"), &body_opts());
    assert!(!d.binary, "{:?}", d.findings);
    let n = normalize::normalize(&msg, &Options::default()).expect("never fails by default");
    let out = String::from_utf8_lossy(&n.bytes);
    assert!(out.contains("charset=utf-8"), "{out}");
    assert!(out.contains("Content-Transfer-Encoding: base64"), "{out}");
    // The text comes back whole: the 0x80 as its windows-1252 reading
    // (unlabelled 8-bit Latin text), the NUL as U+0000.
    let b64 = out.rsplit("\r\n\r\n").next().unwrap_or_default().trim();
    let decoded = mailcharset::message::transfer::decode(
        mailcharset::message::transfer::Cte::Base64,
        b64.as_bytes(),
    );
    assert_eq!(
        String::from_utf8_lossy(&decoded.bytes),
        "\t\x1b\t \x1b      \u{20ac}\0"
    );
}

const JA: &str = "日本語のテキストです。よろしくお願いします。\n";

fn message(ct: &str, body: &[u8]) -> Vec<u8> {
    [
        format!(
            "From: Sender <sender@example.com>\nTo: b@example.org\nSubject: test\n\
             Message-ID: <t@example.com>\nMIME-Version: 1.0\nContent-Type: {ct}\n\
             Content-Transfer-Encoding: 8bit\n\n"
        )
        .into_bytes(),
        body.to_vec(),
    ]
    .concat()
}

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_mailcharset")
}

fn run(args: &[&str], input: &[u8]) -> (i32, Vec<u8>) {
    let mut child = Command::new(bin())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    (out.status.code().unwrap_or(-1), out.stdout)
}

/// The text of the (first) text part of a message, as Python's `email`
/// would give it: decoded through its charset label.
fn body_text(msg: &[u8]) -> String {
    let m = mailcharset::message::Message::parse(msg);
    let part = m
        .parts()
        .into_iter()
        .find(|p| p.is_text())
        .expect("a text part");
    let (bytes, _) = part.decoded_body(&m);
    let label = part.content_type.charset();
    let d = charset::decode(&bytes, label, &DecodeOptions::default());
    d.text.into_owned()
}

/// The audit record of the body: (charset used per normalize, verdict,
/// finding names).
fn audit_body(msg: &[u8]) -> (Option<String>, String, Vec<String>) {
    let (code, out) = run(&["audit", "--format", "jsonl", "-"], msg);
    assert!(code == 0 || code == 1, "audit exit {code}");
    let text = String::from_utf8(out).expect("jsonl is UTF-8");
    let rec: serde_json::Value = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("json"))
        .find(|r| r["location"] == "body")
        .expect("a body record");
    (
        rec["charset"].as_str().map(str::to_string),
        rec["verdict"].as_str().unwrap_or("").to_string(),
        rec["findings"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|f| f["kind"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default(),
    )
}

/// Filter and library normalize give the same bytes; returns them.
fn filtered(msg: &[u8]) -> Vec<u8> {
    let (code, out) = run(&["filter"], msg);
    assert_eq!(code, 0);
    let lib = normalize::normalize(msg, &Options::default()).expect("normalize");
    assert_eq!(out, &*lib.bytes, "filter and the library agree");
    out
}

/// `msg` goes through filter and normalize byte for byte, and its body is
/// audited as `binary-in-text`; `what` names the case.
fn assert_kept_as_binary(msg: &[u8], what: &str) {
    assert_eq!(filtered(msg), msg, "{what}");
    let (_, verdict, findings) = audit_body(msg);
    assert!(
        findings.contains(&"binary-in-text".to_string()),
        "{what}: {verdict} {findings:?}"
    );
}

/// `text` written in `enc` under `label` is read as written, charset
/// `name`, verdict `mislabeled`: through the library, the audit and the
/// filter.
fn assert_read_as_written(text: &str, enc: &'static Encoding, label: &str, name: &str) {
    let bytes = encode(text, enc);
    let d = charset::decode(&bytes, Some(label.as_bytes()), &body_opts());
    assert_eq!(
        d.verdict,
        Verdict::Mislabeled,
        "{name} under {label}: {:?}",
        d.findings
    );
    assert_eq!(d.used.map(|c| c.name()), Some(name), "{name} under {label}");
    assert_eq!(&*d.text, text, "{name} under {label}");
    let msg = message(&format!("text/plain; charset={label}"), &bytes);
    let (_, verdict, findings) = audit_body(&msg);
    assert_eq!(verdict, "mislabeled", "{name} under {label}: {findings:?}");
    assert_eq!(body_text(&filtered(&msg)), text, "{name} under {label}");
}

#[test]
fn regression_utf8_cut_inside_its_last_character_keeps_utf8() {
    let body = [JA.repeat(3).as_bytes(), b"cut \xe6\x97"].concat();
    let msg = message("text/plain; charset=utf-8", &body);
    let (cs, verdict, findings) = audit_body(&msg);
    assert_eq!(
        (cs.as_deref(), verdict.as_str()),
        (Some("UTF-8"), "invalid")
    );
    assert!(findings.contains(&"truncated".to_string()), "{findings:?}");
    let text = body_text(&filtered(&msg));
    assert!(text.starts_with(&JA.repeat(3)), "{text}");
    assert!(text.ends_with("cut \u{FFFD}"), "{text}");
}

#[test]
fn regression_utf8_french_with_a_latin1_signature_keeps_its_accents() {
    let fr = "Voilà déjà l'été, ça va très bien.\n".repeat(3);
    let body = [fr.as_bytes(), b"Signature: Jos\xe9\n"].concat();
    let msg = message("text/plain; charset=utf-8", &body);
    let (cs, verdict, findings) = audit_body(&msg);
    assert_eq!(
        (cs.as_deref(), verdict.as_str()),
        (Some("UTF-8"), "invalid")
    );
    assert!(
        findings.contains(&"mixed-charset".to_string()),
        "{findings:?}"
    );
    let text = body_text(&filtered(&msg));
    assert_eq!(text, format!("{fr}Signature: Jos\u{FFFD}\n"));
    // --repair-mixed reads the signature as windows-1252.
    let (_, out) = run(&["filter", "--repair-mixed"], &msg);
    assert_eq!(body_text(&out), format!("{fr}Signature: José\n"));
    let lib = normalize::normalize(
        &msg,
        &Options {
            repair_mixed: true,
            ..Options::default()
        },
    )
    .expect("normalize");
    assert_eq!(&*lib.bytes, &out[..]);
}

#[test]
fn regression_one_stray_octet_keeps_the_label() {
    let ru = "Привет, как дела? Всё хорошо.\n".repeat(3);
    let el = "Καλημέρα σας, τι κάνετε;\n".repeat(3);
    let cases: Vec<(String, Vec<u8>, String)> = vec![
        (
            "text/plain; charset=utf-8".into(),
            [ru.as_bytes(), b"\xff\n"].concat(),
            ru.clone(),
        ),
        (
            "text/plain; charset=utf-8".into(),
            el.as_bytes()[..el.len() - 3].to_vec(),
            el[..el.len() - "ε;\n".len()].to_string(),
        ),
        (
            "text/plain; charset=shift_jis".into(),
            [
                encode(&JA.repeat(3), encoding_rs::SHIFT_JIS).as_slice(),
                b"\xff\n",
            ]
            .concat(),
            JA.repeat(3),
        ),
        (
            "text/plain; charset=euc-jp".into(),
            [
                encode(&JA.repeat(3), encoding_rs::EUC_JP).as_slice(),
                b"\x80\n",
            ]
            .concat(),
            JA.repeat(3),
        ),
        (
            "text/plain; charset=gb2312".into(),
            [
                encode(
                    &"这是一个中文文本，谢谢你的帮助。\n".repeat(3),
                    encoding_rs::GBK,
                )
                .as_slice(),
                b"\xff\n",
            ]
            .concat(),
            "这是一个中文文本，谢谢你的帮助。\n".repeat(3),
        ),
    ];
    for (ct, body, keep) in cases {
        let msg = message(&ct, &body);
        let (_, verdict, _) = audit_body(&msg);
        assert_eq!(verdict, "invalid", "{ct}");
        let text = body_text(&filtered(&msg));
        assert!(text.starts_with(&keep), "{ct}: {text}");
        assert_eq!(text.matches('\u{FFFD}').count(), 1, "{ct}: {text}");
    }
}

#[test]
fn regression_legacy_text_under_utf8_is_seen() {
    let ru =
        "Привет, как дела? Всё хорошо. Съешь же ещё этих мягких французских булок.\n".repeat(3);
    let zh = "这是一个中文文本，谢谢你的帮助。\n".repeat(3);
    for (text, enc) in [
        (ru.as_str(), encoding_rs::WINDOWS_1251),
        (JA, encoding_rs::SHIFT_JIS),
        (zh.as_str(), encoding_rs::GBK),
    ] {
        let body = encode(&text.repeat(2), enc);
        let msg = message("text/plain; charset=utf-8", &body);
        let (_, verdict, _) = audit_body(&msg);
        assert_eq!(verdict, "mislabeled", "{}", enc.name());
        assert_eq!(body_text(&filtered(&msg)), text.repeat(2), "{}", enc.name());
    }
}

#[test]
fn regression_utf8_under_windows_labels_is_utf8() {
    for (text, label) in [
        ("メールの確認をお願いします。\n", "windows-1252"),
        (
            "Protección de datos y más información aquí.\n",
            "windows-1251",
        ),
        ("Привет, как дела?\n", "x-mac-cyrillic"),
    ] {
        let msg = message(&format!("text/plain; charset={label}"), text.as_bytes());
        let (cs, verdict, _) = audit_body(&msg);
        assert_eq!(verdict, "mislabeled", "{label}");
        assert_eq!(
            cs.as_deref(),
            Some(label).map(|_| cs.as_deref().unwrap_or(""))
        );
        assert_eq!(body_text(&filtered(&msg)), text, "{label}");
    }
}

#[test]
fn regression_binary_under_text_labels_is_kept_byte_for_byte() {
    let zip = [
        b"PK\x03\x04\x14\x00\x00\x00\x08\x00".as_slice(),
        &(0..=255u8).collect::<Vec<_>>(),
    ]
    .concat();
    for (ct, body) in [
        ("text/plain; charset=us-ascii", zip.clone()),
        (
            "text/richtext",
            b"\x00\x01\x02abc\x03\x04\xff\xfe\x10\x11\x12".to_vec(),
        ),
    ] {
        assert_kept_as_binary(&message(ct, &body), ct);
    }
}

/// Short binary files under a UTF-16 label (a UTF-16 reading has no NUL
/// to tell them by): an SQLite database or Ogg stream was written out as
/// CJK "text" (magic numbers they lacked), random octets too (private use
/// one unit in ten, unpaired surrogates). Kept byte for byte.
#[test]
fn regression_short_binary_under_utf_16_is_kept_byte_for_byte() {
    // Octets of a fixed generator (xorshift), no NUL pair among them.
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let random: Vec<u8> = (0..200)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8 | 1
        })
        .collect();
    for (what, head) in [
        ("sqlite", b"SQLite format 3\x00".as_slice()),
        ("ogg", b"OggS\x00\x02"),
        ("wav", b"RIFF\x24\x08\x00\x00WAVEfmt "),
        ("random", b""),
    ] {
        let body = [head, &random[..40 + head.len() % 2]].concat();
        let body = if what == "random" {
            random.clone()
        } else {
            body
        };
        for label in ["utf-16", "utf-16le", "utf-16be"] {
            let msg = message(&format!("text/plain; charset={label}"), &body);
            assert_eq!(filtered(&msg), msg, "{what} {label}");
            let (_, _, findings) = audit_body(&msg);
            assert!(
                findings.contains(&"binary-in-text".to_string()),
                "{what} {label}: {findings:?}"
            );
        }
    }
}

/// 16-bit PCM audio near silence (samples of a few hundred either side of
/// zero: high octets 00, 01, FF, FE) has a NUL in every other octet, so it
/// was read as UTF-16LE without a BOM under no label or an ASCII-based one,
/// and under a UTF-16 label as is, and written out as "text" of Latin,
/// fullwidth and Arabic presentation forms. Its reading holds an ISO 2022
/// shift (U+000E) or a noncharacter (U+FDE8), which no UTF-16 text does:
/// kept byte for byte. (Two 40-octet blobs of `tools/hunt_charsets.py`,
/// seeds 101 and 6.)
#[test]
fn regression_pcm_audio_read_as_utf_16_is_kept_byte_for_byte() {
    let unhex = |s: &str| -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("test hex"))
            .collect()
    };
    let shift =
        unhex("29ff4602dfff48000e00b1ffc9fe5eff3fff14021efecfff2b004b003c0172ffca007900bdfe2300");
    let nonchar =
        unhex("65ffc30039008bff2e049cfe2d01950145001efd400077008801c2003ffe7fffa7fe7efde8fd0dfe");
    for body in [&shift, &nonchar] {
        for label in ["utf-16le", "utf-7", "us-ascii"] {
            assert_kept_as_binary(&binary_message(label, body), label);
        }
        let msg = message("text/plain", body);
        assert_eq!(filtered(&msg), msg, "no label");
    }
}

/// A 40-octet clip that decodes as UTF-16LE without a control or a
/// noncharacter: `uﾜÕｨĆêﻧx³﹧Ãd＊ﻬﻱŻó'ﾹﾇ`, a few letters of Latin,
/// half-width katakana and Hangul and Arabic presentation forms. Under an
/// ASCII-based label (or none), the NULs alone made it UTF-16 text, and
/// normalize wrote that out; a BOM-less reading must now also be
/// plausible text, and this one is kept byte for byte
/// (`tools/hunt_charsets.py` seed 2001, `pcm/shift_jis`).
#[test]
fn regression_a_short_clip_read_as_utf_16_in_four_scripts_is_kept() {
    let hex = "75009cffd50068ff0601ea00e7fe7800b30067fec30064000affecfef1fe7b01f3002700b9ff87ff";
    let clip: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("test hex"))
        .collect();
    assert_eq!(clip.len(), 40);
    for ct in [
        "text/plain; charset=shift_jis",
        "text/plain; charset=us-ascii",
        "text/plain",
    ] {
        assert_kept_as_binary(&message(ct, &clip), ct);
    }
    // English UTF-16 without a BOM, with typographic quotes and a dash
    // and no letter beyond ASCII, is still read as UTF-16.
    let text = "Thanks \u{201C}all\u{201D} \u{2014} see you.\n";
    let utf16: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let msg = message("text/plain; charset=us-ascii", &utf16);
    assert_eq!(body_text(&filtered(&msg)), text);
}

/// A text file with a UTF-16 byte order mark, attached without a charset,
/// whose characters are mostly not Latin (Japanese and Russian): too few
/// NULs for BOM-less UTF-16, so it was kept as binary ("NUL octets"). The
/// byte order mark says UTF-16: it is now read as such
/// (`tools/hunt_clients.py` seed 2001, `att:utf16`).
#[test]
fn regression_utf_16_with_a_byte_order_mark_is_read_by_it() {
    let text = "会議の資料を添付します。\nВстреча состоится в четверг.\n";
    for (bom, le) in [(&b"\xFF\xFE"[..], true), (b"\xFE\xFF", false)] {
        let mut body = bom.to_vec();
        body.extend(
            text.encode_utf16()
                .flat_map(|u| if le { u.to_le_bytes() } else { u.to_be_bytes() }),
        );
        for ct in ["text/plain", "text/plain; charset=us-ascii"] {
            let msg = message(ct, &body);
            let out = body_text(&filtered(&msg));
            assert_eq!(out.trim_start_matches('\u{FEFF}'), text, "{ct} le={le}");
            let (_, verdict, findings) = audit_body(&msg);
            assert!(
                !findings.contains(&"binary-in-text".to_string()),
                "{ct}: {findings:?}"
            );
            assert_ne!(verdict, "ok", "{ct}");
        }
    }
    // A Latin-1 text that starts with `ÿþ` and has no NUL is Latin-1.
    let latin = b"\xFF\xFEHello world\nzweite Zeile, gr\xFC\xDFe\n";
    let msg = message("text/plain; charset=iso-8859-1", latin);
    assert_eq!(
        body_text(&filtered(&msg)),
        "ÿþHello world\nzweite Zeile, grüße\n"
    );
}

/// 16-bit samples (a quiet sound, a table of small integers) have a NUL in
/// every other octet, like BOM-less UTF-16, and decode cleanly as it, into
/// U+0000 and C0/C1 controls: they were written out as UTF-16 "text".
#[test]
fn regression_16_bit_samples_under_text_labels_are_kept_byte_for_byte() {
    let pcm: Vec<u8> = (0..2000)
        .flat_map(|i| (((f64::from(i) * 0.07).sin() * 300.0) as i16).to_le_bytes())
        .collect();
    let table: Vec<u8> = (0..1000u16)
        .flat_map(|i| (i.wrapping_mul(37) % 1000).to_le_bytes())
        .collect();
    let wav = [
        b"RIFF\xe4\x0f\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x40\x1f\x00\x00\x80\x3e\x00\x00\x02\x00\x10\x00data\xa0\x0f\x00\x00".as_slice(),
        &pcm,
    ]
    .concat();
    for body in [&pcm, &table, &wav] {
        for ct in [
            "text/plain; charset=us-ascii",
            "text/plain; charset=iso-8859-1",
            "text/plain; charset=koi8-r",
            "text/plain; charset=iso-2022-jp",
            "text/plain",
        ] {
            assert_kept_as_binary(&message(ct, body), ct);
        }
    }
}

#[test]
fn regression_utf16be_under_an_unknown_label_is_decoded_not_relabelled_as_is() {
    let text = "Hello, this is UTF-16 text.\n";
    let body: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
    let msg = message("text/plain; charset=BadCharset", &body);
    let out = filtered(&msg);
    assert_eq!(body_text(&out), text);
    assert!(String::from_utf8_lossy(&out).contains("charset=utf-8"));
}

/// Western labels are kept on text a detector could take for another
/// script: a line of decoration (a few symbols repeated, which chardetng
/// reads as Korean) and Icelandic, whose accented letters come two and
/// three in a row.
#[test]
fn regression_western_label_keeps_decoration_and_icelandic() {
    let decoration = "Weekly news\n".to_string()
        + &"\u{b7}\u{b8}\u{b8}\u{b7}\u{b4}\u{af}`".repeat(6)
        + "\nRead it on the web.\n";
    let icelandic = "\u{de}j\u{f3}\u{f0}\u{f3}lfur og \u{e6}\u{f0}arfugl \u{ed} \u{de}j\u{f3}\u{f0}minjasafni.\n";
    for text in [decoration.as_str(), icelandic] {
        let (bytes, _, unmappable) = encoding_rs::WINDOWS_1252.encode(text);
        assert!(!unmappable);
        for label in ["iso-8859-1", "windows-1252"] {
            let d = charset::decode(&bytes, Some(label.as_bytes()), &body_opts());
            assert_eq!(d.verdict, Verdict::Ok, "{label}: {:?}", d.findings);
            assert_eq!(&*d.text, text, "{label}");
        }
    }
}

#[test]
fn regression_unlabelled_spanish_is_windows_1252() {
    let text = "Mañana iré a la montaña con mi niño. ¿Vienes?\n";
    let msg = message("text/plain", &encode(text, encoding_rs::WINDOWS_1252));
    assert_eq!(body_text(&filtered(&msg)), text);
}

/// An apostrophe inside a word (`I’ll`, `0x92`) is the same character in
/// windows-1250: it is no sign of a Central European text. chardetng's
/// windows-1250 guess stood on it and made the pound sign `Ł`.
#[test]
fn regression_windows_1252_apostrophe_does_not_make_a_pound_sign_polish() {
    let text = "I\u{2019}ll pay \u{a3}40 on Monday.\n";
    for ct in ["text/plain; charset=us-ascii", "text/plain"] {
        let msg = message(ct, &encode(text, encoding_rs::WINDOWS_1252));
        assert_eq!(body_text(&filtered(&msg)), text, "{ct}");
    }
    // A letter windows-1252 reads as a symbol still says windows-1250.
    let polish = "Spotkanie we Wroc\u{142}awiu, prosz\u{119} o odpowied\u{17a}.\n";
    let msg = message("text/plain", &encode(polish, encoding_rs::WINDOWS_1250));
    assert_eq!(body_text(&filtered(&msg)), polish);
}

#[test]
fn regression_one_big5_character_in_utf8_keeps_utf8() {
    let text = "這是中文。Hello 日本語 text.\n".repeat(2);
    let body = [text.as_bytes(), &encode("說", encoding_rs::BIG5), b"\n"].concat();
    let msg = message("text/plain; charset=utf-8", &body);
    let (cs, verdict, _) = audit_body(&msg);
    assert_eq!(
        (cs.as_deref(), verdict.as_str()),
        (Some("UTF-8"), "invalid")
    );
    let out = body_text(&filtered(&msg));
    assert!(out.starts_with(&text), "{out}");
}

/// A name or a word of two or three CJK characters under `utf-8` with one
/// or two octets damaged (replaced, dropped, its last character cut) has
/// one letter of its own left between the damage, and a CJK charset
/// decodes all of it: it was read as that charset's nonsense (`김지아`
/// as GBK `旯歆€鞎`, `市场` as Shift_JIS `蟶た惻`), in bodies and
/// encoded-word Subjects. It keeps UTF-8, U+FFFD at the damage. Found by
/// a hunt over Faker names and wordfreq words, 2026-11-28 (the strings
/// here are Faker's `ko_KR`, `zh_CN`, `zh_TW` names and wordfreq's `ja`,
/// `zh` words, damaged by its seeds 1 to 3): 8 of 21,168 correctly
/// labelled texts were read so, 0 after. Korean, Japanese and Chinese
/// under a `utf-8` lie whose octets pair up into a UTF-8 letter by chance
/// (`김영` is `B1 E8 BF B5`, `E8 BF B5` a valid `迵`) are still read as
/// written: every character a common one of their charset.
#[test]
fn regression_short_damaged_utf8_cjk_keeps_utf8() {
    let r = '\u{FFFD}';
    let cases: [(&[u8], String); 6] = [
        // 김지아: its first and last characters cut.
        (b"\xea\xb9\xec\xa7\x80\xec\x95", format!("{r}지{r}")),
        // 김지은: its first octet dropped, its last character cut.
        (b"\xb9\x80\xec\xa7\x80\xec\x9d", format!("{r}{r}지{r}")),
        // 市场: the lead octet of 场 replaced.
        (b"\xe5\xb8\x82\xbd\x9c\xba", format!("市{r}{r}{r}")),
        // 阮志豪: the first and last characters cut.
        (b"\xe9\xae\xe5\xbf\x97\xe8\xb1", format!("{r}志{r}")),
        // 蒋桂荣: likewise.
        (b"\xe8\x8b\xe6\xa1\x82\xe8\x8d", format!("{r}桂{r}")),
        // みんな: likewise (it was x-mac-cyrillic `гњгВУг™`).
        (b"\xe3\xbf\xe3\x82\x93\xe3\xaa", format!("{r}ん{r}")),
    ];
    for (octets, reading) in &cases {
        read_as_written_under(reading, octets, &["utf-8"]);
        let msg = message("text/plain; charset=utf-8", octets);
        let (cs, verdict, _) = audit_body(&msg);
        assert_eq!(
            (cs.as_deref(), verdict.as_str()),
            (Some("UTF-8"), "invalid"),
            "{reading}"
        );
    }
    for (text, enc) in [
        ("김영식", encoding_rs::EUC_KR),
        ("김영미", encoding_rs::EUC_KR),
        ("お願い", encoding_rs::SHIFT_JIS),
        ("吴东", encoding_rs::GBK),
    ] {
        read_as_written_under(text, &encode(text, enc), &["utf-8"]);
    }
}

/// A short Latin text under `utf-8` with two of its characters damaged
/// has no valid UTF-8 left, and windows-1252 decodes its four octets: it
/// was read so, `Mlyn™¡rov…¡`, `Vara½¾din`, `ÅÑalis vilkaviÿ¡kio`,
/// `quáºn ngá»i`. It keeps UTF-8, U+FFFD at the damage. A Latin candidate
/// for fewer than 16 octets must read as one language's words: no symbol
/// inside a word, every letter one alphabet's. Found by the Faker hunt,
/// 2026-11-28 (the strings: Faker's `sk_SK`, `hr_HR` names and
/// addresses, wordfreq's `lt`, `vi` words, damaged by its seeds 1 to 6).
/// Latin text in a legacy charset under a `utf-8` lie is still read as
/// written.
#[test]
fn regression_short_damaged_utf8_latin_keeps_utf8() {
    let r = '\u{FFFD}';
    let cases: [(&[u8], String); 4] = [
        // Perla Mlynárová: the lead octets of both `á` replaced.
        (
            b"Perla Mlyn\x99\xa1rov\x85\xa1",
            format!("Perla Mlyn{r}{r}rov{r}{r}"),
        ),
        // Tošovac ... Varaždin: the trail of `š`, the lead of `ž` replaced.
        (
            b"To\xc5\xfdovac 0c 49611 Vara\xbd\xbedin",
            format!("To{r}{r}ovac 0c 49611 Vara{r}{r}din"),
        ),
        // šalis vilkaviškio: both `š` replaced.
        (
            b"\xc5\xd1alis vilkavi\xff\xa1kio",
            format!("{r}{r}alis vilkavi{r}{r}kio"),
        ),
        // quần ngồi: both cut.
        (b"qu\xe1\xban ng\xe1\xbbi", format!("qu{r}n ng{r}i")),
    ];
    for (octets, reading) in &cases {
        read_as_written_under(reading, octets, &["utf-8"]);
    }
    for (text, enc) in [
        ("Grüße aus Köln, Bärbel", encoding_rs::WINDOWS_1252),
        ("Ça va très bien, à bientôt", encoding_rs::WINDOWS_1252),
    ] {
        read_as_written_under(text, &encode(text, enc), &["utf-8"]);
    }
}

#[test]
fn regression_a_lone_f8_octet_is_not_utf8_evidence() {
    // Shift_JIS whose lead octets include FC: once counted as a "legacy
    // form" that only a UTF-8 writer makes.
    let text = "日本語のテキストです。\u{2170}\u{2171}\n".repeat(4);
    let body = encode(&text, encoding_rs::SHIFT_JIS);
    assert!(
        body.iter().any(|&b| (0xF8..=0xFD).contains(&b)),
        "the text has such an octet"
    );
    let d = charset::decode(&body, Some(b"utf8"), &body_opts());
    assert_eq!(d.verdict, Verdict::Mislabeled, "{:?}", d.findings);
    assert_eq!(d.text, text);
}

#[test]
fn regression_bad_base64_encoded_word_gets_a_record_and_stays_as_written() {
    let msg =
        b"From: a@example.com\nSubject: =?utf-8?B?not*base64!?=\nMessage-ID: <x@y.com>\n\nbody\n";
    let (_, out) = run(&["audit", "--format", "jsonl", "-"], msg);
    let text = String::from_utf8(out).expect("utf-8");
    let rec = text
        .lines()
        .find(|l| l.contains("header:Subject"))
        .expect("a Subject record");
    assert!(rec.contains("malformed-encoded-word"), "{rec}");
    assert!(rec.contains("\"label\":\"utf-8\""), "{rec}");
    assert_eq!(filtered(msg), msg);
}

#[test]
fn regression_overlong_windows_874_word_is_decoded_by_both_commands() {
    let thai = "สวัสดีครับ ขอบคุณมาก";
    let q: String = encode(thai, encoding_rs::WINDOWS_874)
        .iter()
        .map(|b| format!("={b:02X}"))
        .collect();
    let word = format!("=?windows-874?Q?{q}?=");
    assert!(word.len() > 75);
    let msg = format!("From: a@example.com\nSubject: {word}\nMessage-ID: <y@y.com>\n\nbody\n");
    let out = filtered(msg.as_bytes());
    let m = mailcharset::message::Message::parse(&out);
    let subject = m.parts()[0].header.get("subject").expect("Subject");
    let decoded = mailcharset::mime::decode_unstructured(subject.value);
    assert_eq!(decoded.text, thai);
    assert!(
        decoded
            .words
            .iter()
            .all(|w| w.label.eq_ignore_ascii_case(b"utf-8"))
    );
    let (_, a) = run(&["audit", "--format", "jsonl", "-"], msg.as_bytes());
    let a = String::from_utf8(a).expect("utf-8");
    let rec = a
        .lines()
        .find(|l| l.contains("header:Subject"))
        .expect("record");
    assert!(rec.contains("\"verdict\":\"ok\""), "{rec}");
}

#[test]
fn regression_unicode_1_1_utf_8_label_on_modern_or_ascii_text() {
    let msg = message(
        "text/plain; charset=UNICODE-1-1-UTF-8",
        "한국어 텍스트입니다.\n".as_bytes(),
    );
    let (_, verdict, findings) = audit_body(&msg);
    assert_eq!(verdict, "mislabeled");
    assert!(findings.contains(&"mislabeled".to_string()));
    let out = filtered(&msg);
    assert_eq!(body_text(&out), "한국어 텍스트입니다.\n");
    assert!(String::from_utf8_lossy(&out).contains("charset=utf-8"));
    // Pure ASCII: relabelled all the same (Python's email cannot read the label).
    for label in [
        "UNICODE-1-1-UTF-8",
        "x-unknown",
        "unknown-8bit",
        "bogus-charset",
    ] {
        let msg = message(&format!("text/plain; charset={label}"), b"plain ascii\n");
        let out = filtered(&msg);
        assert!(
            String::from_utf8_lossy(&out).contains("charset=utf-8"),
            "{label}"
        );
        assert_eq!(body_text(&out), "plain ascii\n");
    }
    // Known ASCII-compatible labels on ASCII stay.
    let msg = message("text/plain; charset=iso-8859-1", b"plain ascii\n");
    assert_eq!(filtered(&msg), msg);
}

#[test]
fn regression_damaged_utf8_under_windows_1252_is_utf8_with_one_replacement() {
    let fr = "Voilà déjà l'été, ça va très bien. À bientôt chez François.\n".repeat(3);
    let body = [&fr.as_bytes()[..50], b"\xff", &fr.as_bytes()[50..]].concat();
    let msg = message("text/plain; charset=windows-1252", &body);
    let (_, verdict, findings) = audit_body(&msg);
    assert_eq!(verdict, "invalid");
    assert!(findings.contains(&"mislabeled".to_string()), "{findings:?}");
    let text = body_text(&filtered(&msg));
    assert_eq!(text.replace('\u{FFFD}', ""), fr);
}

#[test]
fn regression_html_with_one_invalid_sequence_keeps_its_cyrillic() {
    let ru = "Профиль пользователя обновлён. Пожалуйста, проверьте настройки. ".repeat(6);
    let html = format!("<html><body><p>{ru}</p></body></html>\n");
    // One invalid octet between two characters.
    let at = html.char_indices().nth(120).map_or(0, |(i, _)| i);
    let body = [&html.as_bytes()[..at], b"\xc0", &html.as_bytes()[at..]].concat();
    let msg = message("text/html; charset=utf-8", &body);
    let (cs, verdict, _) = audit_body(&msg);
    assert_eq!(
        (cs.as_deref(), verdict.as_str()),
        (Some("UTF-8"), "invalid")
    );
    assert_eq!(body_text(&filtered(&msg)).replace('\u{FFFD}', ""), html);
}

#[test]
fn regression_header_text_goes_through_the_same_decision() {
    let ru = "Привет, как дела у тебя";
    let cp = encode(ru, encoding_rs::WINDOWS_1251);
    let b64 = {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD.encode(&cp)
    };
    let pct: String = cp.iter().map(|b| format!("%{b:02X}")).collect();
    let msgs = [
        format!(
            "From: a@example.ru\nSubject: =?utf-8?B?{b64}?=\nMessage-ID: <s@example.ru>\n\nbody\n"
        )
        .into_bytes(),
        [
            b"From: a@example.ru\nSubject: ".as_slice(),
            &cp,
            b"\nMessage-ID: <r@example.ru>\n\nbody\n",
        ]
        .concat(),
    ];
    for msg in &msgs {
        let out = filtered(msg);
        let m = mailcharset::message::Message::parse(&out);
        let subject = m.parts()[0].header.get("subject").expect("Subject");
        assert_eq!(
            mailcharset::mime::decode_unstructured(subject.value).text,
            ru
        );
    }
    // An RFC 2231 file name in windows-1251 labelled utf-8.
    let msg = format!(
        "From: a@example.ru\nMIME-Version: 1.0\nContent-Type: application/pdf\n\
         Content-Disposition: attachment; filename*=utf-8''{pct}\n\
         Content-Transfer-Encoding: base64\n\nJVBERi0=\n"
    );
    let (_, a) = run(&["audit", "--format", "jsonl", "-"], msg.as_bytes());
    let a = String::from_utf8(a).expect("utf-8");
    let rec = a
        .lines()
        .find(|l| l.contains("param:filename"))
        .expect("record");
    assert!(rec.contains("\"verdict\":\"mislabeled\""), "{rec}");
    assert!(rec.contains("windows-1251"), "{rec}");
}

/// Normalize's report and the audit say the same of every piece of text
/// both look at: same verdict, and for a mislabelled text the same charset.
fn agree(raw: &[u8], what: &str) -> usize {
    use mailcharset::audit::{self, AuditOptions, MessageContext};
    let ctx = MessageContext {
        input: what,
        index: 0,
    };
    let records = audit::audit_message(raw, &ctx, &AuditOptions::default());
    let Ok(n) = normalize::normalize(raw, &Options::default()) else {
        return 0;
    };
    let mut paired = 0;
    for p in &n.report.parts {
        let Some(r) = records
            .iter()
            .find(|r| r.part == p.part && r.location == p.location)
        else {
            continue;
        };
        paired += 1;
        assert_eq!(
            r.verdict, p.verdict,
            "{what} {} {}: {:?} vs {:?}",
            p.part, p.location, r.findings, p.findings
        );
        if let (Verdict::Mislabeled, Some(det)) = (r.verdict, &r.detected) {
            assert_eq!(
                Some(det.charset.as_str()),
                p.charset,
                "{what} {} {}",
                p.part,
                p.location
            );
        }
    }
    paired
}

#[test]
fn normalize_and_audit_agree_on_every_text() {
    let mut paired = 0;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/messages");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "eml"))
        .collect();
    files.sort();
    assert!(files.len() > 20, "the fixtures are there");
    for f in &files {
        paired += agree(&std::fs::read(f).expect("read"), &f.display().to_string());
    }
    // The cases of this file, as messages.
    let ja_cut = [JA.repeat(3).as_bytes(), b"cut \xe6\x97"].concat();
    let fr_sig = [
        "Voilà déjà l'été, ça va très bien.\n".repeat(3).as_bytes(),
        b"Signature: Jos\xe9\n",
    ]
    .concat();
    for (ct, body) in [
        ("text/plain; charset=utf-8", ja_cut),
        ("text/plain; charset=utf-8", fr_sig),
        (
            "text/plain; charset=utf-8",
            encode(&JA.repeat(4), encoding_rs::SHIFT_JIS),
        ),
        (
            "text/plain; charset=windows-1252",
            "メールの確認をお願いします。\n".as_bytes().to_vec(),
        ),
        (
            "text/plain; charset=UNICODE-1-1-UTF-8",
            "한국어 텍스트입니다.\n".as_bytes().to_vec(),
        ),
    ] {
        paired += agree(&message(ct, &body), ct);
    }
    assert!(paired >= 40, "{paired} pieces of text compared");
}

// --- Labels that are not ASCII-compatible: the 7-bit forms (ISO-2022-JP,
// ISO-2022-JP-2, ISO-2022-KR, HZ-GB-2312, UTF-7) and UTF-16/32. ---

/// Every supported label whose decoder does not read ASCII as ASCII, by
/// its canonical name, and whether it is UTF-16 or UTF-32.
fn labels_not_ascii_compatible() -> Vec<(&'static str, bool)> {
    let v: Vec<(&'static str, bool)> = charset::Charset::all()
        .filter(|c| c.is_supported() && !c.is_ascii_compatible())
        .map(|c| {
            // UCS-2 in network byte order (RFC 1641, RFC 1815) too.
            let wide = ["UTF-16", "UTF-32", "ISO-10646-UCS"]
                .iter()
                .any(|p| c.name().starts_with(p))
                || ["UNICODE-1-1", "ISO-10646-J-1"].contains(&c.name());
            (c.name(), wide)
        })
        .collect();
    // The 7-bit ones and the wide ones, all of them.
    for name in [
        "ISO-2022-JP",
        "ISO-2022-JP-2",
        "ISO-2022-KR",
        "HZ-GB-2312",
        "UTF-7",
        "UTF-16",
        "UTF-16LE",
        "UTF-16BE",
        "UTF-32",
        "UTF-32LE",
        "UTF-32BE",
    ] {
        assert!(v.iter().any(|(n, _)| *n == name), "{name} in {v:?}");
    }
    v
}

const MAGICS: &[&[u8]] = &[
    b"%PDF-1.4\n",
    b"PK\x03\x04\x14\x00",
    b"\x89PNG\r\n\x1a\n",
    b"\xff\xd8\xff\xe0\x00\x10JFIF\x00",
    b"GIF89a",
    b"\x1f\x8b\x08\x00",
    b"\x7fELF\x02\x01\x01",
];

fn binary_message(label: &str, content: &[u8]) -> Vec<u8> {
    [
        format!(
            "From: a@example.com\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; \
             charset={label}\r\nContent-Transfer-Encoding: binary\r\n\r\n"
        )
        .into_bytes(),
        content.to_vec(),
    ]
    .concat()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Binary content (a magic number; a run of NULs, as executables and
    /// office files have; under the 7-bit labels also a single NUL, as in
    /// `binary_under_a_text_label_is_kept_byte_for_byte`) under every label
    /// that is not ASCII-compatible: kept byte for byte, `binary-in-text`.
    #[test]
    fn binary_under_every_label_not_ascii_compatible_is_kept_byte_for_byte(
        which in any::<prop::sample::Index>(),
        kind in 0..3usize,
        magic in any::<prop::sample::Index>(),
        content in prop::collection::vec(any::<u8>(), 13..400),
        at in any::<prop::sample::Index>(),
    ) {
        let labels = labels_not_ascii_compatible();
        let (label, wide) = labels[which.index(labels.len())];
        let mut content = content;
        let at = at.index(content.len());
        match kind {
            0 => content.splice(0..0, MAGICS[magic.index(MAGICS.len())].iter().copied()).for_each(drop),
            1 => content.splice(at..at, [0u8; 8]).for_each(drop),
            _ => {
                // A single NUL is the mark of binary only where a text has
                // no NUL octet (not UTF-16/32).
                prop_assume!(!wide);
                content[at] = 0;
            }
        }
        content.push(0xFF);
        let d = charset::decode(&content, Some(label.as_bytes()), &body_opts());
        prop_assert!(d.binary, "{} kind {}: {:?}", label, kind, d.findings);
        prop_assert!(d.findings.iter().any(|f| f.kind == FindingKind::BinaryInText));
        let msg = binary_message(label, &content);
        let n = normalize::normalize(&msg, &Options::default()).expect("never fails by default");
        prop_assert_eq!(&*n.bytes, &msg[..], "{} kind {}", label, kind);
    }

    /// Text in an ASCII-compatible charset under a 7-bit label (8-bit
    /// octets it cannot have) or under UTF-16/32 (no NUL octet, which its
    /// every line end and space would have): `mislabeled`, and the text
    /// recovered. Shift_JIS and EUC-JP under ISO-2022-JP are a common lie
    /// in Japanese mail.
    #[test]
    fn text_a_7bit_or_wide_label_cannot_be_is_seen_and_recovered(
        which in 0..14usize,
        ru in text_strategy(RUSSIAN),
        fr in text_strategy(FRENCH),
        ja in text_strategy(JAPANESE),
        zh in text_strategy(CHINESE),
        ko in text_strategy(KOREAN),
    ) {
        let (lines, enc, label) = match which {
            0 => (ja.clone(), encoding_rs::SHIFT_JIS, "iso-2022-jp"),
            1 => (ja.clone(), encoding_rs::EUC_JP, "iso-2022-jp"),
            2 => (ja.clone(), encoding_rs::UTF_8, "iso-2022-jp"),
            3 => (ja.clone(), encoding_rs::SHIFT_JIS, "iso-2022-jp-2"),
            4 => (fr.clone(), encoding_rs::UTF_8, "utf-7"),
            5 => (fr.clone(), encoding_rs::WINDOWS_1252, "utf-7"),
            6 => (ko.clone(), encoding_rs::EUC_KR, "iso-2022-kr"),
            7 => (ru.clone(), encoding_rs::UTF_8, "iso-2022-kr"),
            8 => (zh.clone(), encoding_rs::GBK, "hz-gb-2312"),
            9 => (ja.clone(), encoding_rs::UTF_8, "utf-16"),
            10 => (ru, encoding_rs::UTF_8, "utf-16le"),
            11 => (ja, encoding_rs::SHIFT_JIS, "utf-16be"),
            12 => (fr, encoding_rs::UTF_8, "utf-32"),
            _ => (zh, encoding_rs::UTF_8, "unicode-1-1-utf-7"),
        };
        lie_is_seen_and_text_recovered(&lines, enc, label)?;
    }
}

/// The reviewer's reproducer: a PDF attachment as text/plain under
/// ISO-2022-JP, UTF-7 and UTF-16 was decoded (U+FFFD, or UTF-16 CJK with
/// verdict ok).
#[test]
fn regression_pdf_under_iso_2022_jp_utf_7_and_utf_16_is_kept() {
    let pdf: &[u8] =
        b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\nxref\n0 1\n\
        0000000000 65535 f \ntrailer\n<< /Root 1 0 R >>\n%%EOF\n";
    for label in [
        "iso-2022-jp",
        "utf-7",
        "utf-16",
        "utf-16le",
        "utf-32",
        "hz-gb-2312",
    ] {
        let msg = message(&format!("text/plain; charset={label}"), pdf);
        assert_eq!(filtered(&msg), msg, "{label}");
        let (_, verdict, findings) = audit_body(&msg);
        assert_eq!(verdict, "suspicious", "{label}");
        assert_eq!(findings, ["binary-in-text"], "{label}");
    }
}

/// Shift_JIS, EUC-JP and UTF-8 labelled ISO-2022-JP (and UTF-8 labelled
/// UTF-7): every 8-bit octet was replaced with U+FFFD, `detected: null`.
/// The same in a Subject encoded-word.
#[test]
fn regression_japanese_and_utf8_under_a_7bit_label_are_recovered() {
    let ja = "会議の件について、明日の午後三時からでお願いします。\n資料は添付のとおりです。\n";
    let de = "Grüße aus München! Die Straße ist übermäßig groß, aber schön.\n";
    for (text, enc, label, read_as) in [
        (ja, encoding_rs::SHIFT_JIS, "iso-2022-jp", "Shift_JIS"),
        (ja, encoding_rs::EUC_JP, "iso-2022-jp", "EUC-JP"),
        (ja, encoding_rs::UTF_8, "iso-2022-jp", "UTF-8"),
        (de, encoding_rs::UTF_8, "utf-7", "UTF-8"),
    ] {
        let msg = message(&format!("text/plain; charset={label}"), &encode(text, enc));
        let (_, verdict, findings) = audit_body(&msg);
        assert_eq!(
            verdict, "mislabeled",
            "{read_as} under {label}: {findings:?}"
        );
        let out = filtered(&msg);
        assert_eq!(body_text(&out), text, "{read_as} under {label}");
        let bytes = encode(text, enc);
        let d = charset::decode(&bytes, Some(label.as_bytes()), &body_opts());
        assert_eq!(d.detected.map(|x| x.charset.name()), Some(read_as));
    }
    // A short Shift_JIS line (9 octets): "予定です。"
    let short = "予定です。\n";
    let sjis = encode(short, encoding_rs::SHIFT_JIS);
    let d = charset::decode(&sjis, Some(b"iso-2022-jp"), &body_opts());
    assert_eq!((d.verdict, &*d.text), (Verdict::Mislabeled, short));
    // A Subject encoded-word in Shift_JIS labelled ISO-2022-JP.
    let subject = "会議の資料について";
    let b64 = {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD.encode(encode(subject, encoding_rs::SHIFT_JIS))
    };
    let msg = format!(
        "From: a@example.co.jp\nSubject: =?iso-2022-jp?B?{b64}?=\nMessage-ID: <j@example.co.jp>\n\nbody\n"
    );
    let out = filtered(msg.as_bytes());
    let m = mailcharset::message::Message::parse(&out);
    let s = m.parts()[0].header.get("subject").expect("Subject");
    assert_eq!(
        mailcharset::mime::decode_unstructured(s.value).text,
        subject
    );
    let (_, a) = run(&["audit", "--format", "jsonl", "-"], msg.as_bytes());
    let a = String::from_utf8(a).expect("utf-8");
    let rec = a
        .lines()
        .find(|l| l.contains("header:Subject"))
        .expect("record");
    assert!(rec.contains("\"verdict\":\"mislabeled\""), "{rec}");
    assert!(rec.contains("Shift_JIS"), "{rec}");
}

/// Damage stays damage under ISO-2022-JP: a broken escape sequence (7-bit)
/// and two stray 8-bit octets side by side (`xÿ€y` in windows-1252) keep
/// ISO-2022-JP and every other line, verdict `invalid`. A windows-1252
/// signature line (six letters in words) is no damage: it is read as such
/// (`suspicious`).
#[test]
fn regression_damaged_iso_2022_jp_keeps_its_label() {
    let ja = "日本語のテキストです。よろしくお願いします。\n";
    let good = encode(&ja.repeat(3), encoding_rs::ISO_2022_JP);
    let broken = {
        let mut l = encode(ja, encoding_rs::ISO_2022_JP);
        l.remove(2); // ESC $ B -> ESC $
        l
    };
    let sig = encode(
        "Signature: José Müller, Café crème à Zürich\n",
        encoding_rs::WINDOWS_1252,
    );
    for (what, body, verdict) in [
        (
            "broken escape",
            [good.as_slice(), &broken].concat(),
            Verdict::Invalid,
        ),
        (
            "stray octets",
            [good.as_slice(), b"x\xff\x80y\n"].concat(),
            Verdict::Invalid,
        ),
        (
            "latin-1 line",
            [good.as_slice(), &sig].concat(),
            Verdict::Suspicious,
        ),
    ] {
        let d = charset::decode(&body, Some(b"iso-2022-jp"), &body_opts());
        assert_eq!(d.used.map(|c| c.name()), Some("ISO-2022-JP"), "{what}");
        assert_eq!(d.verdict, verdict, "{what}: {:?}", d.findings);
        assert!(d.text.starts_with(&ja.repeat(3)), "{what}: {}", d.text);
        if verdict == Verdict::Invalid {
            assert!(d.text.contains('\u{FFFD}'), "{what}: {}", d.text);
        }
    }
    let signed = [good.as_slice(), &sig].concat();
    let d = charset::decode(&signed, Some(b"iso-2022-jp"), &body_opts());
    assert!(
        d.text
            .ends_with("Signature: José Müller, Café crème à Zürich\n"),
        "{}",
        d.text
    );
}

/// The text of a 7-bit label is ASCII octets, valid UTF-8 by nature: a
/// correctly labelled ISO-2022-JP (HZ, UTF-7) text with a UTF-8 signature of
/// three or more multi-octet characters was read as UTF-8 whole, its
/// Japanese turned into `$B$3$s...` (`mislabeled`); so was one with a
/// damaged UTF-8 signature. The label stays, the signature is named
/// (`mixed-charset`, UTF-8) and read as UTF-8 (`suspicious`: nothing is
/// left damaged).
#[test]
fn regression_7bit_text_with_a_utf8_signature_keeps_its_label() {
    let ja = "こんにちは、今日はいい天気ですね。\n明日の会議は十時からです。\n";
    let jis = encode(ja, encoding_rs::ISO_2022_JP);
    let zh = "你好，今天天气很好。明天的会议十点开始。\n";
    let hz: &[u8] = b"~{Dc:C#,=qLlLlFx:\\:C!#CwLl5D;aRiJ.5c?*J<!#~}\n";
    let ru = "Привет, как дела? Сегодня хорошая погода.\n";
    let utf7: &[u8] = b"+BB8EQAQ4BDIENQRC, +BDoEMAQ6 +BDQENQQ7BDA? +BCEENQQzBD4ENAQ9BE8 \
        +BEUEPgRABD4ESAQwBE8 +BD8EPgQzBD4ENAQw.\n";
    let sig = "-- \nJosé Müller — Zürich\n";
    for (text, bytes, label) in [
        (ja, &jis[..], "iso-2022-jp"),
        (zh, hz, "hz-gb-2312"),
        (ru, utf7, "utf-7"),
    ] {
        let body = [bytes, sig.as_bytes()].concat();
        let d = charset::decode(&body, Some(label.as_bytes()), &body_opts());
        assert_eq!(d.verdict, Verdict::Suspicious, "{label}: {:?}", d.findings);
        assert_eq!(d.text, format!("{text}{sig}"), "{label}");
        assert!(
            d.findings
                .iter()
                .any(|f| f.kind == FindingKind::MixedCharset
                    && f.note.as_deref().is_some_and(|n| n.contains("UTF-8"))),
            "{label}: {:?}",
            d.findings
        );
        let msg = message(&format!("text/plain; charset={label}"), &body);
        let out = normalize::normalize(&msg, &Options::default()).expect("normalize");
        assert_eq!(body_text(&out.bytes), format!("{text}{sig}"), "{label}");
    }
    // A damaged UTF-8 signature (UTF-8 letters in words, one stray octet).
    let damaged = [
        &jis[..],
        "Grüße aus München! Die Straße ist übermäßig groß, schön.".as_bytes(),
        b"\xff\n",
    ]
    .concat();
    let d = charset::decode(&damaged, Some(b"iso-2022-jp"), &body_opts());
    assert_eq!(d.used.map(|c| c.name()), Some("ISO-2022-JP"));
    assert!(d.text.starts_with(ja), "{}", d.text);
}

/// An ISO-2022-JP reply with the UTF-8 mail it answers quoted below it: the
/// whole body is valid UTF-8 (ISO-2022-JP is 7-bit), and it was read as
/// UTF-8, the reply shown as `$BED...(B` escapes. The label keeps its lines;
/// the quote is `mixed-charset` (UTF-8) and read as UTF-8.
#[test]
fn regression_iso_2022_jp_reply_quoting_utf8_keeps_its_lines() {
    let reply =
        "田中様、いつもお世話になっております。\n資料をお送りします。よろしくお願いいたします。\n";
    let quote = "> 来週の木曜日午後二時から会議室でお待ちしております。\n";
    let body = [
        encode(reply, encoding_rs::ISO_2022_JP),
        b"\nOn Monday someone wrote:\n".to_vec(),
        quote.as_bytes().to_vec(),
    ]
    .concat();
    let d = charset::decode(&body, Some(b"iso-2022-jp"), &body_opts());
    assert_eq!(d.used.map(|c| c.name()), Some("ISO-2022-JP"));
    assert_eq!(d.verdict, Verdict::Suspicious, "{:?}", d.findings);
    assert!(
        d.text.starts_with(reply) && d.text.ends_with(quote),
        "{}",
        d.text
    );
    let mixed = mixed_finding(&d);
    assert!(
        mixed.note.as_deref().is_some_and(|n| n.contains("UTF-8")),
        "{mixed:?}"
    );
    let msg = message("text/plain; charset=iso-2022-jp", &body);
    let (code, out) = run(&["normalize", "-"], &msg);
    assert_eq!(code, 0);
    let text = body_text(&out);
    assert!(text.starts_with(reply) && text.ends_with(quote), "{text}");
    // Without the reply's escapes the octets are UTF-8 text, as before.
    let d = charset::decode(quote.as_bytes(), Some(b"iso-2022-jp"), &body_opts());
    assert_eq!((d.verdict, &*d.text), (Verdict::Mislabeled, quote));
}

/// A short ISO-2022-JP reply over a long quote in UTF-8 or Shift_JIS (the
/// label explains little of the octets): the body was read as UTF-8 or
/// Shift_JIS whole, the reply shown as `$B$4ITL@(B` escapes. Lines in the
/// label's escape sequences that it decodes cleanly keep its reading
/// (`mixed-charset`, "the label's"), the rest is read as what it is.
#[test]
fn regression_short_iso_2022_jp_reply_over_a_long_quote_keeps_its_lines() {
    let reply = "ご不明な点がございましたら、お気軽にご連絡ください。\n";
    let quote_line = "> 来週の木曜日午後二時から会議室でお待ちしております。山田太郎\n";
    let quote = format!("\nOn Monday someone wrote:\n{}", quote_line.repeat(8));
    let jis = encode(reply, encoding_rs::ISO_2022_JP);
    let damaged_utf8 = {
        let mut q = quote.clone().into_bytes();
        let at = q.len() / 2;
        q[at] = 0xFF;
        q
    };
    for (rest, rest_cs, damaged) in [
        (quote.as_bytes().to_vec(), encoding_rs::UTF_8, false),
        (
            encode(&quote, encoding_rs::SHIFT_JIS),
            encoding_rs::SHIFT_JIS,
            false,
        ),
        (damaged_utf8, encoding_rs::UTF_8, true),
    ] {
        let name = rest_cs.name();
        let body = [&jis[..], &rest[..]].concat();
        let d = charset::decode(&body, Some(b"iso-2022-jp"), &body_opts());
        assert_eq!(d.verdict, Verdict::Invalid, "{name}: {:?}", d.findings);
        assert!(d.text.starts_with(reply), "{name}: {}", d.text);
        let (want_rest, _, _) = rest_cs.decode(&rest);
        assert_eq!(&d.text[reply.len()..], &*want_rest, "{name}");
        let fffd = want_rest.matches('\u{FFFD}').count();
        assert_eq!((d.replacements, fffd > 0), (fffd, damaged), "{name}");
        let own = mixed_finding(&d);
        assert_eq!(own.count, 1, "{name}: {own:?}");
        assert!(
            own.note
                .as_deref()
                .is_some_and(|n| n.contains("ISO-2022-JP, the label's")),
            "{name}: {own:?}"
        );
        let msg = message("text/plain; charset=iso-2022-jp", &body);
        let (_, out) = run(&["normalize", "-"], &msg);
        assert_eq!(body_text(&out), format!("{reply}{want_rest}"), "{name}");
    }
    // An ANSI colour escape (`ESC [`) in a UTF-8 text is no such line.
    let ansi = [b"\x1b[1mbold\x1b[0m\n", quote.as_bytes()].concat();
    let d = charset::decode(&ansi, Some(b"iso-2022-jp"), &body_opts());
    assert!(
        !d.findings
            .iter()
            .any(|f| f.kind == FindingKind::MixedCharset),
        "{:?}",
        d.findings
    );
}

/// EUC-JP labelled Shift_JIS: Shift_JIS reads its octets as half-width
/// katakana (`ﾅﾄﾃ賚ﾍ｡｢` for 田中様、) with errors here and there, and its
/// lines of katakana counted as read, so the label stayed (`invalid`, the
/// text unreadable). A reading that is mostly half-width katakana explains
/// nothing: the text is read as EUC-JP when chardetng says so and EUC-JP
/// decodes all of it. Real Shift_JIS in half-width katakana, damaged, and
/// a Shift_JIS reply over an EUC-JP quote (which GBK decodes too) keep the
/// label.
#[test]
fn regression_euc_jp_labelled_shift_jis_is_read_as_euc_jp() {
    let ja = "田中様、いつもお世話になっております。\n先日の打ち合わせの件で、資料をお送りします。\n\
              来週の木曜日午後二時から会議室でお待ちしております。\n";
    for n in [1, 4] {
        let text = ja.repeat(n);
        let body = encode(&text, encoding_rs::EUC_JP);
        let d = charset::decode(&body, Some(b"shift_jis"), &body_opts());
        assert_eq!(d.verdict, Verdict::Mislabeled, "{n}: {:?}", d.findings);
        assert_eq!(d.used.map(|c| c.name()), Some("EUC-JP"));
        assert_eq!(&*d.text, text);
        let msg = message("text/plain; charset=shift_jis", &body);
        assert_eq!(body_text(&filtered(&msg)), text);
    }
    // Half-width katakana written as such, one octet damaged: the label's.
    let hankaku = "ｺﾝﾆﾁﾊ ｵｹﾞﾝｷﾃﾞｽｶ｡ ｱｼﾀﾉ ｶｲｷﾞﾊ 10ｼﾞｶﾗﾃﾞｽ｡\nﾖﾛｼｸ ｵﾈｶﾞｲｼﾏｽ｡ ﾔﾏﾀﾞ ﾀﾛｳ\n".repeat(3);
    let mut body = encode(&hankaku, encoding_rs::SHIFT_JIS);
    let at = body.len() / 2;
    body[at] = 0xFD;
    let d = charset::decode(&body, Some(b"shift_jis"), &body_opts());
    assert_eq!(
        d.used.map(|c| c.name()),
        Some("Shift_JIS"),
        "{:?}",
        d.findings
    );
    assert_eq!(d.replacements, 1);
    // A Shift_JIS reply over a quoted EUC-JP mail: the reply stays
    // Shift_JIS (GBK decodes both, as nonsense).
    let reply = "ご確認ありがとうございます。\n";
    let body = [
        encode(reply, encoding_rs::SHIFT_JIS),
        encode(&ja.repeat(2), encoding_rs::EUC_JP),
    ]
    .concat();
    let d = charset::decode(&body, Some(b"shift_jis"), &body_opts());
    assert_eq!(
        d.used.map(|c| c.name()),
        Some("Shift_JIS"),
        "{:?}",
        d.findings
    );
    assert!(d.text.starts_with(reply), "{}", d.text);
}

/// Korean EUC-KR labelled GB2312 decodes cleanly into Hanzi nonsense, kept
/// with verdict `ok`. Its characters all sit in rows 0xB0..0xC8 (EUC-KR's
/// Hangul), where Chinese puts about half of its own: such a text is read
/// as EUC-KR when chardetng says so. Chinese made of words from those rows
/// alone (笔记本电脑) keeps its label: chardetng says GBK.
#[test]
fn regression_euc_kr_labelled_gb2312_is_read_as_euc_kr() {
    let ko =
        "안녕하세요, 오늘 회의는 오후 세 시에 시작합니다.\n자료를 보내 드리겠습니다. 감사합니다.\n";
    let (bytes, _, bad) = encoding_rs::EUC_KR.encode(ko);
    assert!(!bad);
    for label in ["gb2312", "gbk", "gb18030"] {
        let d = charset::decode(&bytes, Some(label.as_bytes()), &body_opts());
        assert_eq!(d.verdict, Verdict::Mislabeled, "{label}: {:?}", d.findings);
        assert_eq!(d.used.map(|c| c.name()), Some("EUC-KR"), "{label}");
        assert_eq!(&*d.text, ko, "{label}");
        let msg = message(&format!("text/plain; charset={label}"), &bytes);
        assert_eq!(body_text(&filtered(&msg)), ko, "{label}");
    }
    // Too few characters to tell (fewer than 24): the label's.
    let (short, _, _) = encoding_rs::EUC_KR.encode("안녕하세요, 감사합니다.\n");
    let d = charset::decode(&short, Some(b"gb2312"), &body_opts());
    assert_eq!(d.used.map(|c| c.name()), Some("GB2312"), "{:?}", d.findings);
    for zh in [
        "笔记本电脑，".repeat(12),
        "我们是中国人。今天天气很好，明天的会议十点开始。".repeat(2),
    ] {
        let (gb, _, _) = encoding_rs::GBK.encode(&zh);
        let d = charset::decode(&gb, Some(b"gb2312"), &body_opts());
        assert_eq!((d.verdict, &*d.text), (Verdict::Ok, zh.as_str()));
    }
}

/// Simplified Chinese (GB2312) and Traditional (Big5) text written for
/// these tests: a note about a report, a meeting and an upgrade.
const GB_TEXT: &str = "王经理您好，附件是本季度的销售报表，请您查收。\n\
                       下周三的技术讨论会改到三楼第二会议室，时间不变。\n\
                       系统升级已经完成，新版本运行稳定，目前没有发现问题。\n";
const BIG5_TEXT: &str = "陳經理您好，附件是本季度的銷售報表，請您查收。\n\
                         下週三的技術討論會改到三樓第二會議室，時間不變。\n\
                         系統升級已經完成，新版本運行穩定，目前沒有發現問題。\n";

/// Big5 labelled GB2312 (or GBK, GB18030) decodes cleanly into Hanzi
/// nonsense, and GB2312 labelled Big5 too (or with an error here and
/// there: `人` C8 CB is no Big5 character); both were kept with verdict
/// `ok` or `invalid`. Big5 puts a trail octet in 0x40..0x7E in about two
/// characters of five, which GBK reads as its extensions; GB2312 has
/// none there and about half of its Hanzi in rows 0xC9..0xF7, Big5's rare
/// level 2. Such a text is read as what chardetng says it is. Fewer than
/// 24 characters keep the label.
#[test]
fn regression_big5_and_gb2312_under_each_others_label_are_read_as_written() {
    for label in ["gb2312", "gbk", "gb18030"] {
        assert_read_as_written(BIG5_TEXT, encoding_rs::BIG5, label, "Big5");
    }
    let with_ren = format!("{GB_TEXT}新来的同事有三个人，请行政部准备好电脑和门卡。\n");
    for label in ["big5", "big5-hkscs"] {
        assert_read_as_written(GB_TEXT, encoding_rs::GBK, label, "GBK");
        assert_read_as_written(&with_ren, encoding_rs::GBK, label, "GBK");
    }
    // Too few characters to tell (fewer than 24): the label's.
    for (text, enc, label, name) in [
        ("請您查收，謝謝。\n", encoding_rs::BIG5, "gb2312", "GB2312"),
        ("请您查收，谢谢。\n", encoding_rs::GBK, "big5", "Big5"),
    ] {
        let bytes = encode(text, enc);
        let d = charset::decode(&bytes, Some(label.as_bytes()), &body_opts());
        assert_eq!(d.used.map(|c| c.name()), Some(name), "{:?}", d.findings);
    }
}

/// Big5 text as written under its label, HKSCS characters in it (the
/// encoder of encoding_rs writes none below lead 0xA1: they are put in
/// by hand).
fn hkscs(text: &str) -> Vec<u8> {
    let own: &[(char, [u8; 2])] = &[
        ('哋', [0x92, 0x5D]),
        ('啲', [0x9D, 0xF8]),
        ('嘅', [0x9D, 0xEF]),
        ('咗', [0x9D, 0xF7]),
        ('喺', [0x9D, 0xF6]),
    ];
    let mut out = Vec::new();
    for c in text.chars() {
        match own.iter().find(|(k, _)| *k == c) {
            Some((_, b)) => out.extend_from_slice(b),
            None => out.extend(encode(c.encode_utf8(&mut [0; 4]), encoding_rs::BIG5)),
        }
    }
    let (back, bad) = encoding_rs::BIG5.decode_without_bom_handling(&out);
    assert!(!bad && back == text, "the test's HKSCS octets");
    out
}

/// Chinese text under its own label keeps it, whatever the shape of its
/// octets: GB2312 with GBK's extensions (rare names, traditional words:
/// trail octets 0x40..0x7E), with kana, Greek and box drawing (chardetng
/// says Big5 for some of it), damaged; Big5 of common characters, HKSCS
/// Cantonese under `big5-hkscs` and `big5`, damaged; and a reply in the
/// label's charset over a long quote in the other, whose lines the
/// label's reading keeps.
#[test]
fn regression_chinese_text_under_its_own_chinese_label_keeps_it() {
    let names = "张堃、李喆、王赟和刘垚下周一报到，请准备好电脑。\n\
                 臺灣的國際會議改到下个月，请通知经理。\n";
    let extra = "┌──┬──┐\n│ 一 │ 二 │\n└──┴──┘\nカタカナ、ひらがな、α、β、γ。\n";
    let gb_texts = [
        format!("{GB_TEXT}{names}").repeat(3),
        format!("{names}{names}"),
        format!("{extra}{GB_TEXT}{extra}").repeat(2),
    ];
    let hk = "你哋今晚喺邊度食飯？我哋七點鐘喺銅鑼灣等。\n\
              呢個價錢有啲貴，可唔可以平啲呀？佢琴日冇返工，話係病咗。\n";
    let mut cases: Vec<(Vec<u8>, &str, String)> = Vec::new();
    for t in &gb_texts {
        for label in ["gb2312", "gbk", "gb18030"] {
            cases.push((encode(t, encoding_rs::GBK), label, t.clone()));
        }
    }
    for label in ["big5", "big5-hkscs"] {
        let t = BIG5_TEXT.repeat(3);
        cases.push((encode(&t, encoding_rs::BIG5), label, t));
        cases.push((hkscs(&hk.repeat(2)), label, hk.repeat(2)));
    }
    for (bytes, label, text) in &cases {
        let msg = message(&format!("text/plain; charset={label}"), bytes);
        assert_eq!(body_text(&filtered(&msg)), *text, "{label}");
        let d = charset::decode(bytes, Some(label.as_bytes()), &body_opts());
        assert_eq!(
            (d.verdict, &*d.text),
            (Verdict::Ok, text.as_str()),
            "{label}"
        );
        // One octet damaged in the middle: still the label's, U+FFFD there.
        for bad in [0xFF, 0x80] {
            let mut damaged = bytes.clone();
            let at = damaged.len() / 2;
            damaged[at] = bad;
            let d = charset::decode(&damaged, Some(label.as_bytes()), &body_opts());
            let name = charset::Charset::for_label(label.as_bytes()).map(|c| c.name());
            assert_eq!(d.used.map(|c| c.name()), name, "{label}: {:?}", d.findings);
        }
    }
    // A short reply over a long quote in the other charset: the reply
    // keeps the label's reading.
    let quote = |t: &str| t.lines().map(|l| format!("> {l}\n")).collect::<String>();
    let mixed = [
        (
            "此致敬礼！\n",
            encoding_rs::GBK,
            BIG5_TEXT,
            encoding_rs::BIG5,
            "gb2312",
        ),
        (
            "敬祝　商祺\n",
            encoding_rs::BIG5,
            GB_TEXT,
            encoding_rs::GBK,
            "big5",
        ),
    ];
    for (reply, renc, quoted, qenc, label) in mixed {
        let bytes = [encode(reply, renc), encode(&quote(&quoted.repeat(4)), qenc)].concat();
        let d = charset::decode(&bytes, Some(label.as_bytes()), &body_opts());
        assert!(
            d.text.starts_with(reply),
            "{label}: {:?} {}",
            d.findings,
            d.text
        );
    }
}

/// What a GB2312 writer puts in now and then from GBK's extensions (rare
/// names, traditional words) or GB2312's other rows (kana, Greek, box
/// drawing, full-width digits).
const GB_EXTRAS: &[&str] = &[
    "张堃",
    "李喆",
    "王赟",
    "刘垚",
    "臺灣",
    "國際",
    "電腦",
    "謝謝",
    "カタカナ",
    "α、β",
    "┌──┐",
    "１２３",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Chinese text under its own label keeps it: Simplified words in
    /// GB2312 with GBK's extensions and other rows here and there under
    /// gb2312, gbk and gb18030; Traditional words in Big5 under big5 and
    /// big5-hkscs; any sender's domain.
    #[test]
    fn chinese_text_under_its_own_chinese_label_never_flips(
        zh in text_strategy(CHINESE),
        zht in text_strategy(TRADITIONAL),
        extras in prop::collection::vec((0..GB_EXTRAS.len(), any::<usize>()), 0..8),
        which in 0..5usize,
        domain in 0..64usize,
        repeat in 1..6usize,
    ) {
        let (label, enc, lines) = match which {
            0..=2 => {
                let mut lines = zh;
                for (e, at) in extras {
                    let k = at % lines.len();
                    lines[k].push_str(GB_EXTRAS[e]);
                }
                (["gb2312", "gbk", "gb18030"][which], encoding_rs::GBK, lines)
            }
            _ => (["big5", "big5-hkscs"][which - 3], encoding_rs::BIG5, zht),
        };
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect::<String>().repeat(repeat);
        let bytes = encode(&text, enc);
        let opts = DecodeOptions { tld: tld(domain), ..body_opts() };
        let d = charset::decode(&bytes, Some(label.as_bytes()), &opts);
        prop_assert_eq!(d.verdict, Verdict::Ok, "{}: {:?}", label, d.findings);
        prop_assert_eq!(&*d.text, text.as_str(), "{}", label);
    }
}

/// ASCII and UTF-8 text labelled UTF-16 (no NUL octet: none of its line
/// ends or spaces is UTF-16) was read as CJK mojibake with verdict ok.
#[test]
fn regression_ascii_and_utf8_under_utf_16_are_read_as_such() {
    for text in [
        "Hello, this is plain text.\nSecond line.\n",
        "Grüße aus München, schön.\n",
    ] {
        for label in ["utf-16", "utf-16le", "utf-16be", "utf-32"] {
            let msg = message(&format!("text/plain; charset={label}"), text.as_bytes());
            let (_, verdict, _) = audit_body(&msg);
            assert_eq!(verdict, "mislabeled", "{label}");
            let out = filtered(&msg);
            assert_eq!(body_text(&out), text, "{label}");
            assert!(String::from_utf8_lossy(&out).contains("charset=utf-8"));
        }
    }
    // Real UTF-16 (NULs in it) stays.
    let text = "Hello, UTF-16 text.\n";
    let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let d = charset::decode(&le, Some(b"utf-16"), &body_opts());
    assert_eq!((d.verdict, &*d.text), (Verdict::Ok, text));
}

/// UTF-16 text of CJK characters alone has no NUL octet, and its octets can
/// be ASCII with a space or a tab (张三 is `5F 20 4E 09` in UTF-16BE): such
/// a correctly labelled body or Subject was read as ASCII `_ N\t`,
/// `mislabeled`.
#[test]
fn regression_utf_16_cjk_without_a_nul_octet_keeps_its_label() {
    for text in ["张三", "\u{201c}你好\u{201d}", "张伟"] {
        let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        for (bytes, label) in [(&be, "utf-16be"), (&le, "utf-16le")] {
            if !bytes.contains(&b' ') && !bytes.contains(&b'\t') {
                continue;
            }
            assert!(!bytes.contains(&0), "{text} {label}");
            for opts in [DecodeOptions::default(), body_opts()] {
                let d = charset::decode(bytes, Some(label.as_bytes()), &opts);
                assert_eq!(
                    (d.verdict, &*d.text, d.binary),
                    (Verdict::Ok, text, false),
                    "{text} under {label}, body {}: {:?}",
                    opts.body,
                    d.findings
                );
            }
        }
    }
}

/// ISO-2022-JP (escapes on every line, 7-bit) under x-unknown was relabelled
/// utf-8 with the escapes left in the text; under us-ascii or no label it
/// was read as ASCII. RFC 1468 text is ISO-2022-JP whatever the label
/// says: ASCII cannot explain its escape sequences.
#[test]
fn regression_iso_2022_jp_under_an_ascii_reading_label_is_read_as_such() {
    let ja =
        "皆様、こんにちは。\n明日の会議は午後三時から始まります。\nよろしくお願いいたします。\n";
    let body = encode(ja, encoding_rs::ISO_2022_JP);
    for (ct, verdict) in [
        ("text/plain; charset=x-unknown", "suspicious"),
        ("text/plain; charset=unknown-8bit", "suspicious"),
        ("text/plain; charset=us-ascii", "mislabeled"),
        ("text/plain", "suspicious"),
        ("text/plain; charset=bogus", "unknown-label"),
        // Labels that read the escapes as control characters too.
        ("text/plain; charset=utf-8", "mislabeled"),
        ("text/plain; charset=iso-8859-1", "mislabeled"),
        ("text/plain; charset=windows-1252", "mislabeled"),
        ("text/plain; charset=shift_jis", "mislabeled"),
    ] {
        let msg = message(ct, &body);
        let (_, v, findings) = audit_body(&msg);
        assert_eq!(v, verdict, "{ct}: {findings:?}");
        let out = filtered(&msg);
        assert_eq!(body_text(&out), ja, "{ct}");
        assert!(
            String::from_utf8_lossy(&out).contains("charset=utf-8"),
            "{ct}"
        );
    }
    // An ANSI colour escape is not ISO-2022-JP: ASCII stays as it is.
    for label in ["us-ascii", "utf-8", "iso-8859-1"] {
        let msg = message(
            &format!("text/plain; charset={label}"),
            b"\x1b[31mred\x1b[0m text\n",
        );
        assert_eq!(filtered(&msg), msg, "{label}");
    }
    // ISO-2022-JP octets inside a word labelled UTF-8 (a mailer that
    // labelled what it did not convert): the Subject was shown with its
    // escapes; it is read as ISO-2022-JP and reported.
    let subject = "よろしくお願いいたします。会議の件";
    let b64 = {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD.encode(encode(subject, encoding_rs::ISO_2022_JP))
    };
    let msg = format!(
        "From: a@example.jp\nSubject: =?utf-8?B?{b64}?=\nMIME-Version: 1.0\n\
         Content-Type: text/plain; charset=us-ascii\n\nhello\n"
    );
    let (code, out) = run(&["normalize", "--headers", "utf8", "-"], msg.as_bytes());
    assert_eq!(code, 0);
    let out = String::from_utf8(out).expect("utf-8 output");
    assert!(out.contains(&format!("Subject: {subject}\n")), "{out}");
    let (code, audit) = run(&["audit", "--format", "jsonl", "-"], msg.as_bytes());
    assert_eq!(code, 0);
    let audit = String::from_utf8_lossy(&audit);
    assert!(
        audit.lines().any(|l| l.contains("header:Subject")
            && l.contains("\"verdict\":\"mislabeled\"")
            && l.contains("ISO-2022-JP")),
        "{audit}"
    );
}

/// A Latin-1 letter with a UTF-8 signature below it (a gateway's footer):
/// the UTF-8 letters outnumber the label's accents, so the part is read as
/// damaged UTF-8, and every accent of the letter was U+FFFD ("caf\u{FFFD}"),
/// though the label reads those lines as words. Lines UTF-8 reads nothing
/// of keep the label's reading (`mixed-charset`, the label named); a damaged
/// UTF-8 line keeps U+FFFD at its damage, whatever the label reads there.
#[test]
fn regression_latin1_letter_with_a_utf8_signature_keeps_its_accents() {
    let sig = "-- \nFrançois Lévesque — Directeur général\nSociété Générale, Québec\n\
               Jürgen Müller, Düsseldorf, Königsallee, Straße 12, Ödön Ürgüp\n";
    for (main, label) in [
        ("Thanks, the café is fine for Tuesday.\n", "iso-8859-1"),
        ("Price is £40, paid naïvely.\n", "windows-1252"),
        (
            "Let's meet at the café.\nBring the slides.\n",
            "iso-8859-15",
        ),
    ] {
        let (bytes, _, bad) = encoding_rs::WINDOWS_1252.encode(main);
        assert!(!bad);
        let body = [&bytes[..], sig.as_bytes()].concat();
        let d = charset::decode(&body, Some(label.as_bytes()), &body_opts());
        assert_eq!(
            &*d.text,
            format!("{main}{sig}"),
            "{label}: {:?}",
            d.findings
        );
        assert_eq!(d.replacements, 0);
        assert_eq!(d.used.map(|c| c.name()), Some("UTF-8"));
        assert_eq!(d.verdict, Verdict::Invalid);
        let mixed = mixed_finding(&d);
        assert!(
            mixed
                .note
                .as_deref()
                .is_some_and(|n| n.contains("the label's"))
        );
        let msg = message(&format!("text/plain; charset={label}"), &body);
        let (code, out) = run(&["normalize", "-"], &msg);
        assert_eq!(code, 0);
        assert_eq!(body_text(&out), format!("{main}{sig}"), "{label}");
    }
    // Damaged UTF-8 under a Latin-1 label: the line that lost its only
    // UTF-8 character (a lead without its second octet, `Ã`; a second octet
    // without its lead, `Ÿ`; a line with a UTF-8 character beside the
    // damage) keeps U+FFFD there, not a Latin-1 reading of the line.
    let good = "Schöne Grüße aus Köln, die Straße ist übermäßig groß.\n".repeat(2);
    for (damaged, want) in [
        (
            &b"Bitte schick mir die \xc3berarbeitete Fassung.\n"[..],
            "Bitte schick mir die \u{FFFD}berarbeitete Fassung.\n",
        ),
        (b"im gro\x9fen Saal.\n", "im gro\u{FFFD}en Saal.\n"),
        (
            b"ta r\xc3\xa9ponse tr\xe8s rapide.\n",
            "ta réponse tr\u{FFFD}s rapide.\n",
        ),
        (
            b"die \xc3\xe2\xbcberarbeitete Fassung.\n",
            "die \u{FFFD}\u{FFFD}berarbeitete Fassung.\n",
        ),
    ] {
        let body = [good.as_bytes(), damaged].concat();
        // Under ISO-8859-2 the lost second octet leaves `Ă`, not `Ã`.
        for label in ["iso-8859-1", "iso-8859-2"] {
            let d = charset::decode(&body, Some(label.as_bytes()), &body_opts());
            assert_eq!(&*d.text, format!("{good}{want}"), "{label}");
            assert!(
                !d.findings
                    .iter()
                    .any(|f| f.kind == FindingKind::MixedCharset)
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    /// The model behind `labels_own_lines`: a UTF-8 letter (German, French,
    /// Polish, Russian sentences) damaged once (an octet lost, replaced,
    /// inserted, or stripped of its high bit) under a lying single-byte
    /// label. When it is read as UTF-8, no line of it is taken for the
    /// label's own text: a damaged line keeps U+FFFD at the damage. (Two
    /// damages on one character can leave a real Latin-1 letter, `C3 9F` →
    /// `C0`: no rule tells that line from the label's.)
    #[test]
    fn damaged_utf8_lines_are_not_taken_for_the_labels(
        picks in proptest::collection::vec(0usize..8, 3..10),
        damage in proptest::collection::vec((any::<prop::sample::Index>(), 0u8..4, any::<u8>()), 1..2),
        label in prop::sample::select(vec!["iso-8859-1", "windows-1252", "iso-8859-2", "iso-8859-15", "windows-1251", "koi8-r"]),
    ) {
        const LINES: [&str; 8] = [
            "Die Besprechung ist am Donnerstag um 14 Uhr im großen Saal.",
            "Bitte schick mir die überarbeitete Fassung bis Freitag.",
            "Schöne Grüße aus Köln, dein Jürgen",
            "Je serai à la réunion de jeudi après-midi.",
            "Le document est déjà envoyé à l'équipe de Genève.",
            "Dziękuję za szybką odpowiedź, Łódź.",
            "Привет, как дела? Сегодня хорошая погода.",
            "Bonjour Marie, merci pour ta réponse très rapide.",
        ];
        let text: String = picks.iter().map(|&i| format!("{}\n", LINES[i])).collect();
        let mut bytes = text.into_bytes();
        for (at, op, v) in damage {
            let high: Vec<usize> = (0..bytes.len()).filter(|&i| bytes[i] >= 0x80).collect();
            if high.is_empty() {
                break;
            }
            let i = high[at.index(high.len())];
            match op {
                0 => {
                    bytes.remove(i);
                }
                1 => bytes[i] = v,
                2 => bytes.insert(i, v | 0x80),
                _ => bytes[i] &= 0x7F,
            }
        }
        let d = charset::decode(&bytes, Some(label.as_bytes()), &body_opts());
        if d.used.is_some_and(|c| c.name() == "UTF-8") {
            let own = d.findings.iter().find(|f| {
                f.kind == FindingKind::MixedCharset
                    && f.note.as_deref().is_some_and(|n| n.contains("the label's"))
            });
            prop_assert!(own.is_none(), "{:?}: {:?}", own, String::from_utf8_lossy(&bytes));
        }
    }
}

// --- Text in another script under a Latin label (doc/charset-decision.md,
// "A Latin label reading another script"). ---

/// Words of Latin-script languages as their writers use them, the hardest
/// for the rule among them: Icelandic, Hungarian, Czech, Turkish with
/// adjacent accents (`Þjóðólfur`, `úžší`, `çığ`), short words of one
/// accented letter, names, all-caps words, and symbols (a price list).
const LATIN_WORDS: &[&str] = &[
    "Þjóðólfur",
    "æðarfugl",
    "þú",
    "ég",
    "Ísland",
    "Reykjavík",
    "őrült",
    "Győr",
    "tűz",
    "ő",
    "Ő",
    "úžší",
    "řeč",
    "čtvrť",
    "žluťoučký",
    "kůň",
    "Dvořák",
    "Šťastný",
    "çığ",
    "ağaç",
    "İstanbul",
    "Iğdır",
    "Çağrı",
    "Işık",
    "à",
    "é",
    "ó",
    "ü",
    "ô",
    "è",
    "ñ",
    "Ñuñoa",
    "Müller",
    "Núñez",
    "Ødegård",
    "Ærø",
    "Åsa",
    "Łódź",
    "ÄÖÜ",
    "äöü",
    "ß",
    "ÉÈÊË",
    "ÀÂÄ",
    "£5",
    "£10",
    "25°",
    "±2",
    "½",
    "€45",
    "©",
    "§4",
    "«",
    "»",
    "—",
    "…",
    "•",
    "Größe",
    "naïve",
    "Noël",
    "smørrebrød",
    "blåbærsyltetøj",
    "informação",
    "ações",
    "¿Qué",
    "tal?",
    "the",
    "meeting",
    "at",
    "3pm",
    "OK",
    "--",
    "2024",
    "x",
];

/// Vietnamese as windows-1258 writes it: a tone as a combining mark after
/// its letter (`Việt` is `Vi`, `ê`, U+0323, `t`).
const VIETNAMESE_1258: &[&str] = &[
    "Vi\u{ea}\u{323}t",
    "Nam",
    "ng\u{1b0}\u{1a1}\u{300}i",
    "\u{111}\u{1b0}\u{1a1}\u{323}c",
    "ti\u{ea}\u{301}ng",
    "ca\u{309}m",
    "\u{1a1}n",
    "xin",
    "ch\u{e0}o",
    "Ha\u{300}",
    "N\u{f4}\u{323}i",
    "\u{1b0}\u{1a1}\u{301}t",
    "\u{1a1}\u{309}",
    "\u{111}\u{e2}u",
];

/// A Latin label and its encoding (ISO-8859-1 is written as windows-1252,
/// as it is decoded).
const LATIN_LABELS: &[(&str, &str)] = &[
    ("iso-8859-1", "windows-1252"),
    ("windows-1252", "windows-1252"),
    ("iso-8859-15", "iso-8859-15"),
    ("iso-8859-2", "iso-8859-2"),
    ("windows-1250", "windows-1250"),
    ("iso-8859-9", "windows-1254"),
    ("windows-1254", "windows-1254"),
    ("iso-8859-16", "iso-8859-16"),
    ("iso-8859-13", "iso-8859-13"),
    ("iso-8859-10", "iso-8859-10"),
    ("macintosh", "macintosh"),
    ("windows-1258", "windows-1258"),
];

/// Senders' top-level domains (chardetng's hint), from non-Latin regions
/// too: a correct Latin-1 text from a `.ru` address is not Russian.
const TLDS: &[&str] = &[
    "", "com", "de", "cz", "tr", "vn", "ru", "gr", "jp", "kr", "cn", "th",
];

/// The rule's own measure, as a test sees it: runs of three or more
/// non-ASCII characters (white space ends one) with a letter, their
/// characters, and the words (runs of characters other than ASCII
/// non-letters and white space) holding a non-ASCII character.
fn runs_of(text: &str) -> (usize, usize, usize) {
    let (mut runs, mut chars, mut len, mut letter) = (0, 0, 0, false);
    for c in text.chars().chain(std::iter::once(' ')) {
        if !c.is_ascii() && !c.is_whitespace() {
            len += 1;
            letter |= c.is_alphabetic();
            continue;
        }
        if len >= 3 && letter {
            runs += 1;
            chars += len;
        }
        (len, letter) = (0, false);
    }
    let words = text
        .split(|c: char| (c.is_ascii() && !c.is_ascii_alphabetic()) || c.is_whitespace())
        .filter(|w| !w.is_ascii())
        .count();
    (runs, chars, words)
}

fn tld(i: usize) -> Option<charset::Tld> {
    charset::Tld::from_domain(format!("example.{}", TLDS[i % TLDS.len()]).as_bytes())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Correctly labelled Latin-script text keeps its label, whatever its
    /// words (adjacent accents, lists of letters, symbols, capitals), the
    /// sender's domain, and one or two damaged octets (replaced by, or a
    /// stray, 8-bit octet).
    #[test]
    fn latin_text_under_its_latin_label_never_flips(
        which in 0..LATIN_LABELS.len(),
        words in prop::collection::vec((0..LATIN_WORDS.len(), 0..VIETNAMESE_1258.len()), 1..60),
        seps in prop::collection::vec(prop::sample::select(vec![" ", " ", " ", "\n", ", ", ". "]), 60),
        caps in any::<bool>(),
        tld_at in 0..TLDS.len(),
        damage in prop::collection::vec((any::<prop::sample::Index>(), any::<bool>(), 0x80u8..=0xFF), 0..3),
    ) {
        let (label, enc_name) = LATIN_LABELS[which];
        let enc = Encoding::for_label(enc_name.as_bytes()).expect("a known encoding");
        let vietnamese = label == "windows-1258";
        let mut text = String::new();
        for (k, &(w, v)) in words.iter().enumerate() {
            let word = if vietnamese { VIETNAMESE_1258[v] } else { LATIN_WORDS[w] };
            let word = if caps { word.to_uppercase() } else { word.to_string() };
            // Words the charset cannot write are left out.
            if enc.encode(&word).2 {
                continue;
            }
            text.push_str(&word);
            text.push_str(seps[k]);
        }
        text.push('\n');
        // Cyrillic text: a Cyrillic letter at least. Words such as `the`,
        // `OK`, `2024` alone are English under a Cyrillic label, and two
        // damaged octets inside them (`th\xE9\xE8e`) read as the Latin
        // text's own letters as readily as damage (the rule that reads a
        // French quote's `Ao\xFBt … \xE9crit` under KOI8-R as windows-1252,
        // in linux-mips, takes them): no case for this property.
        prop_assume!(text.chars().any(|c| c.is_alphabetic() && !c.is_ascii()));
        // Two damaged octets of 0x80..0x9F under ISO-8859-2, -4 or -13,
        // in natural words, that the Windows twin reads letter for letter
        // are what a Windows writer's letters look like there: the
        // documented Windows-writer rule reads such a text as windows-1250
        // (-1257), and the two cannot be told apart (about one run in a
        // hundred drew one). Where the twin would make a letter a sign
        // inside a word or a capital where no writer puts one, the label
        // stands: `regression_a_windows_writer_under_the_iso_label_is_read_as_windows`.
        prop_assume!(
            !matches!(enc_name, "iso-8859-2" | "iso-8859-4" | "iso-8859-13")
                || damage.iter().filter(|d| (0x80..0xA0).contains(&d.2)).count() < 2
        );
        let mut bytes = encode(&text, enc);
        let damaged = !damage.is_empty();
        for (at, replace, v) in damage {
            let i = at.index(bytes.len());
            if replace { bytes[i] = v } else { bytes.insert(i, v) }
        }
        let opts = DecodeOptions { tld: tld(tld_at), ..body_opts() };
        let d = charset::decode(&bytes, Some(label.as_bytes()), &opts);
        // (A `mislabeled` finding may note a text that is also valid UTF-8
        // by one or two characters, the label kept.)
        prop_assert!(
            d.verdict != Verdict::Mislabeled,
            "{} {:?}: {:?}", label, String::from_utf8_lossy(&bytes), d.findings
        );
        prop_assert_eq!(
            d.used.and_then(|c| c.decoder_name()),
            charset::Charset::for_label(label.as_bytes()).and_then(|c| c.decoder_name())
        );
        if !damaged {
            prop_assert_eq!(&*d.text, text.as_str());
        }
    }

    /// Text in another script under a Latin label is seen and recovered
    /// when its Latin reading has the shape the rule asks for (three or
    /// more runs of non-ASCII characters, 32 characters in them, half its
    /// words with non-ASCII characters or more) and chardetng, which
    /// names the candidate, knows the charset (a few repeated words,
    /// `Привет этих французских`, it may take for another). chardetng takes
    /// x-mac-cyrillic for windows-1251: the rule tells them apart by the
    /// capitals and `я`, or keeps the label; never a third reading.
    #[test]
    fn another_script_under_a_latin_label_is_seen_and_recovered(
        which in 0..9usize,
        label in prop::sample::select(vec!["iso-8859-1", "windows-1252", "iso-8859-15", "iso-8859-2"]),
        ru in text_strategy(RUSSIAN),
        el in text_strategy(GREEK),
        ko in text_strategy(KOREAN),
        ja in text_strategy(JAPANESE),
    ) {
        let (lines, enc) = match which {
            0 => (ru.clone(), encoding_rs::WINDOWS_1251),
            1 => (ru.clone(), encoding_rs::KOI8_R),
            2 => (ru.clone(), encoding_rs::ISO_8859_5),
            3 => (ru, encoding_rs::X_MAC_CYRILLIC),
            4 => (el.clone(), encoding_rs::WINDOWS_1253),
            5 => (el, encoding_rs::ISO_8859_7),
            6 => (ko, encoding_rs::EUC_KR),
            7 => (ja.clone(), encoding_rs::SHIFT_JIS),
            _ => (ja, encoding_rs::EUC_JP),
        };
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let bytes = encode(&text, enc);
        let label_enc = Encoding::for_label(label.as_bytes()).expect("a known encoding");
        let (reading, _) = label_enc.decode_without_bom_handling(&bytes);
        let (runs, chars, words) = runs_of(&reading);
        prop_assume!(runs >= 3 && chars >= 32 && runs * 2 >= words);
        let guess = charset::detect(&bytes).charset.encoding();
        if enc == encoding_rs::X_MAC_CYRILLIC && guess == Some(encoding_rs::WINDOWS_1251) {
            // The two readings differ in the capitals and `я`; when they
            // score alike the label stays: never a third reading.
            let d = charset::decode(&bytes, Some(label.as_bytes()), &body_opts());
            prop_assert!(d.verdict != Verdict::Mislabeled || *d.text == text, "{:?}", d.text);
            return Ok(());
        }
        prop_assume!(guess.is_some_and(|g| g.decode_without_bom_handling(&bytes).0 == text));
        lie_is_seen_and_text_recovered(&lines, enc, label)?;
    }
}

/// The cases of the lie that decodes cleanly under its label: Korean,
/// Russian, Thai, Greek, Japanese and Arabic text sent under the Latin
/// label of an old client, through the library and the command line.
#[test]
fn regression_another_script_under_a_latin_label_is_read_as_itself() {
    let ko = "회의는 목요일 오후 두 시에 서울 사무실에서 열립니다.\n수정된 계약서를 금요일까지 보내 주시기 바랍니다.\n";
    let ru =
        "Спасибо за быстрый ответ, договор я получил.\nВстреча будет в четверг в два часа дня.\n";
    let th = "สวัสดีครับ ขอบคุณที่ตอบกลับมาเร็ว\nการประชุมจะมีขึ้นในวันพฤหัสบดีที่กรุงเทพฯ\n";
    let el = "Η συνάντηση θα γίνει την Πέμπτη στην Αθήνα.\nΠαρακαλώ στείλτε μου το έγγραφο.\n";
    let ja = "先日の打ち合わせの件で、資料をお送りします。\nご不明な点がございましたら、お気軽にご連絡ください。\n";
    let ar = "سيكون الاجتماع يوم الخميس في القاهرة.\nالرجاء إرسال التقرير قبل يوم الجمعة.\n";
    let mac = "Здравствуйте, Иван Петрович! Прошу прислать исправленную версию до пятницы.\n";
    let cases: &[(&str, &'static Encoding, &str, &str)] = &[
        (ko, encoding_rs::EUC_KR, "iso-8859-1", "EUC-KR"),
        (
            ru,
            encoding_rs::WINDOWS_1251,
            "windows-1252",
            "windows-1251",
        ),
        // chardetng names KOI8-U, which reads Russian as KOI8-R does.
        (ru, encoding_rs::KOI8_R, "iso-8859-15", "KOI8-U"),
        (th, encoding_rs::WINDOWS_874, "iso-8859-1", "windows-874"),
        (el, encoding_rs::WINDOWS_1253, "iso-8859-1", "windows-1253"),
        (ja, encoding_rs::SHIFT_JIS, "iso-8859-1", "Shift_JIS"),
        (ar, encoding_rs::WINDOWS_1256, "iso-8859-2", "windows-1256"),
        // chardetng takes x-mac-cyrillic for windows-1251; its capitals
        // and `я` tell them apart.
        (
            mac,
            encoding_rs::X_MAC_CYRILLIC,
            "iso-8859-1",
            "x-mac-cyrillic",
        ),
    ];
    for &(text, enc, label, name) in cases {
        assert_read_as_written(text, enc, label, name);
    }
}

/// Russian Mac text without a label (or under `us-ascii`): chardetng
/// names windows-1251, which reads Mac capitals as symbols and Serbian
/// letters (`‡дравствуйте, €ван ѕетрович`). Weighed against
/// x-mac-cyrillic as under a failing label; windows-1251 text stays.
#[test]
fn regression_mac_cyrillic_without_a_label_is_read_as_such() {
    let text = "Здравствуйте, Иван Петрович! Прошу прислать исправленную версию до пятницы.\nВстреча будет в четверг в Москве. С уважением, Ольга\n";
    for (enc, name) in [
        (encoding_rs::X_MAC_CYRILLIC, "x-mac-cyrillic"),
        (encoding_rs::WINDOWS_1251, "windows-1251"),
    ] {
        let (bytes, _, bad) = enc.encode(text);
        assert!(!bad);
        for (label, tld) in [(None, "ru"), (None, "com"), (Some(&b"us-ascii"[..]), "ru")] {
            let opts = DecodeOptions {
                tld: charset::Tld::from_domain(format!("example.{tld}").as_bytes()),
                body: true,
                ..DecodeOptions::default()
            };
            let d = charset::decode(&bytes, label, &opts);
            assert_eq!(d.text, text, "{name} {label:?} .{tld}");
            assert_eq!(d.detected.map(|g| g.charset.name()), Some(name));
        }
    }
}

/// Thin evidence keeps the label: a list of letters has the shape of
/// another script's words (four runs, 13 characters: `ДЦЬ дць ЙИКЛ АВД`
/// in windows-1251), Vietnamese under windows-1258 is runs of non-ASCII
/// characters by nature, one Korean name is one run.
#[test]
fn regression_latin_text_shaped_like_another_script_keeps_its_label() {
    let cases: &[(&str, &'static Encoding, &str)] = &[
        (
            "Umlaute: ÄÖÜ äöü, Akzente: ÉÈÊË ÀÂÄ\n",
            encoding_rs::WINDOWS_1252,
            "iso-8859-1",
        ),
        (
            "Vi\u{ea}\u{323}t Nam, ng\u{1b0}\u{1a1}\u{300}i \u{111}\u{1b0}\u{1a1}\u{323}c \u{1b0}\u{1a1}\u{301}t\n",
            encoding_rs::WINDOWS_1258,
            "windows-1258",
        ),
        (
            "Þjóðólfur æðarfugl ÞÓRÐARDÓTTIR, úžší çığ\n",
            encoding_rs::WINDOWS_1252,
            "windows-1252",
        ),
        (
            "Price list: £5, £10, 25°, ±2, ½, ¼ — «€45» …\n",
            encoding_rs::WINDOWS_1252,
            "iso-8859-1",
        ),
    ];
    for &(text, enc, label) in cases {
        // Not every character of every line is in every charset: those
        // that are not are left out, as a writer would have to.
        let text: String = text
            .chars()
            .filter(|c| !enc.encode(&c.to_string()).2)
            .collect();
        let bytes = encode(&text, enc);
        let d = charset::decode(&bytes, Some(label.as_bytes()), &body_opts());
        assert_ne!(d.verdict, Verdict::Mislabeled, "{label}: {:?}", d.findings);
        assert_eq!(&*d.text, text.as_str(), "{label}");
    }
}

// --- Cyrillic under another Cyrillic label (doc/charset-decision.md, "A
// Cyrillic label reading its case turned over"). ---

/// Words of Russian and Ukrainian as writers use them, the closest real
/// text comes to a turned case among them: CamelCase names, capitals,
/// abbreviations.
const CYRILLIC_WORDS: &[&str] = &[
    "Привет,",
    "как",
    "дела?",
    "Всё",
    "хорошо.",
    "Встреча",
    "завтра",
    "в",
    "офисе",
    "МосГорТранс",
    "ВКонтакте",
    "РосНефть",
    "СберБанк",
    "АвтоВАЗ",
    "ООО",
    "«Ромашка»",
    "ВНИМАНИЕ!",
    "СРОЧНО",
    "РФ",
    "США",
    "Київ",
    "їжак",
    "Ґанок",
    "ще",
    "з",
    "№5",
    "—",
    "the",
    "OK",
    "2024",
];

/// The Cyrillic labels and their encodings.
const CYRILLIC_LABELS: &[&str] = &[
    "windows-1251",
    "koi8-r",
    "koi8-u",
    "iso-8859-5",
    "ibm866",
    "x-mac-cyrillic",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Correctly labelled Cyrillic text keeps its label, whatever its
    /// words (CamelCase names, capitals), the sender's domain, and one or
    /// two damaged octets.
    #[test]
    fn cyrillic_text_under_its_cyrillic_label_never_flips(
        which in 0..CYRILLIC_LABELS.len(),
        words in prop::collection::vec(0..CYRILLIC_WORDS.len(), 1..60),
        seps in prop::collection::vec(prop::sample::select(vec![" ", " ", " ", "\n", ", ", ". "]), 60),
        caps in any::<bool>(),
        tld_at in 0..TLDS.len(),
        damage in prop::collection::vec((any::<prop::sample::Index>(), any::<bool>(), 0x80u8..=0xFF), 0..3),
    ) {
        let label = CYRILLIC_LABELS[which];
        let enc = Encoding::for_label(label.as_bytes()).expect("a known encoding");
        let mut text = String::new();
        for (k, &w) in words.iter().enumerate() {
            let word = if caps { CYRILLIC_WORDS[w].to_uppercase() } else { CYRILLIC_WORDS[w].to_string() };
            if enc.encode(&word).2 {
                continue;
            }
            text.push_str(&word);
            text.push_str(seps[k]);
        }
        text.push('\n');
        // Cyrillic text: a Cyrillic letter at least. Words such as `the`,
        // `OK`, `2024` alone are English under a Cyrillic label, and two
        // damaged octets inside them (`th\xE9\xE8e`) read as the Latin
        // text's own letters as readily as damage (the rule that reads a
        // French quote's `Ao\xFBt … \xE9crit` under KOI8-R as windows-1252,
        // in linux-mips, takes them): no case for this property.
        prop_assume!(text.chars().any(|c| c.is_alphabetic() && !c.is_ascii()));
        let mut bytes = encode(&text, enc);
        let damaged = !damage.is_empty();
        for (at, replace, v) in damage {
            let i = at.index(bytes.len());
            if replace { bytes[i] = v } else { bytes.insert(i, v) }
        }
        let opts = DecodeOptions { tld: tld(tld_at), ..body_opts() };
        let d = charset::decode(&bytes, Some(label.as_bytes()), &opts);
        prop_assert!(d.verdict != Verdict::Mislabeled, "{} {:?}: {:?}", label, String::from_utf8_lossy(&bytes), d.findings);
        let used = d.used.and_then(|c| c.decoder_name());
        // One or two damaged octets at KOI8-U's letters, glued to a word in
        // a text with no box drawing, read as those letters (`suspicious`,
        // never `mislabeled`: asserted above); KOI8-U reads every other
        // octet as KOI8-R does.
        let koi8u_damage = damaged && label == "koi8-r" && used == Some("KOI8-U");
        if !koi8u_damage {
            prop_assert_eq!(
                used,
                charset::Charset::for_label(label.as_bytes()).and_then(|c| c.decoder_name())
            );
        }
        if !damaged {
            prop_assert_eq!(&*d.text, text.as_str());
        }
    }

    /// Russian in windows-1251 under a KOI8 label, and KOI8-R under
    /// windows-1251, is seen and recovered when the label's reading has
    /// its case turned over as the rule asks (three or more words with a
    /// lowercase letter before a capital, more than twice its capitalised
    /// words) and chardetng knows the charset. (Other pairs, ISO-8859-5
    /// and KOI8-R, turn the case over less neatly: caught now and then.)
    #[test]
    fn cyrillic_under_another_cyrillic_label_is_seen_and_recovered(
        which in 0..3usize,
        ru in text_strategy(RUSSIAN),
    ) {
        let (enc, label) = [
            (encoding_rs::WINDOWS_1251, "koi8-r"),
            (encoding_rs::WINDOWS_1251, "koi8-u"),
            (encoding_rs::KOI8_R, "windows-1251"),
        ][which];
        let text: String = ru.iter().map(|l| format!("{l}\n")).collect();
        let bytes = encode(&text, enc);
        let label_enc = Encoding::for_label(label.as_bytes()).expect("a known encoding");
        let (reading, _) = label_enc.decode_without_bom_handling(&bytes);
        let (inverted, capitalised) = turned_case(&reading);
        prop_assume!(inverted >= 3 && inverted > 2 * capitalised);
        let guess = charset::detect(&bytes).charset.encoding();
        prop_assume!(guess.is_some_and(|g| g.decode_without_bom_handling(&bytes).0 == text));
        lie_is_seen_and_text_recovered(&ru, enc, label)?;
    }
}

/// (words with a lowercase letter before a capital, capitalised words),
/// of the words of two or more letters with a Cyrillic letter: the
/// rule's measure as a test sees it.
fn turned_case(text: &str) -> (usize, usize) {
    let (mut inverted, mut capitalised) = (0, 0);
    for w in text.split(|c: char| !c.is_alphabetic()) {
        let letters: Vec<char> = w.chars().collect();
        if letters.len() < 2 || !letters.iter().any(|c| ('\u{400}'..='\u{4ff}').contains(c)) {
            continue;
        }
        let mut lower = false;
        let mut turned = false;
        for &c in &letters {
            turned |= lower && c.is_uppercase();
            lower |= c.is_lowercase();
        }
        inverted += usize::from(turned);
        capitalised += usize::from(
            letters[0].is_uppercase() && !letters[1..].iter().any(|c| c.is_uppercase()),
        );
    }
    (inverted, capitalised)
}

/// KOI8-R under windows-1251 reads `рТЙЧЕФ`, windows-1251 under KOI8-R
/// `оПХБЕР`: the case turned over. Through the library and the command
/// line.
#[test]
fn regression_cyrillic_under_another_cyrillic_label_is_read_as_itself() {
    let ru = "Здравствуйте, Иван Петрович! Спасибо за быстрый ответ.\n\
              Встреча будет в четверг. Прошу прислать исправленную версию.\n\
              Ещё нужно обсудить смету. С уважением, Анна Смирнова\n";
    let cases: &[(&'static Encoding, &str, &[&str])] = &[
        (encoding_rs::KOI8_R, "windows-1251", &["KOI8-R", "KOI8-U"]),
        (encoding_rs::WINDOWS_1251, "koi8-r", &["windows-1251"]),
        (encoding_rs::ISO_8859_5, "koi8-r", &["ISO-8859-5"]),
    ];
    for &(enc, label, names) in cases {
        let bytes = encode(ru, enc);
        let d = charset::decode(&bytes, Some(label.as_bytes()), &body_opts());
        assert_eq!(
            d.verdict,
            Verdict::Mislabeled,
            "{} under {label}: {:?}",
            enc.name(),
            d.findings
        );
        assert!(
            d.used.is_some_and(|c| names.contains(&c.name())),
            "{} under {label}: {:?}",
            enc.name(),
            d.used
        );
        assert_eq!(&*d.text, ru, "{} under {label}", enc.name());
        let msg = message(&format!("text/plain; charset={label}"), &bytes);
        let (_, verdict, _) = audit_body(&msg);
        assert_eq!(verdict, "mislabeled", "{} under {label}", enc.name());
        assert_eq!(
            body_text(&filtered(&msg)),
            ru,
            "{} under {label}",
            enc.name()
        );
    }
    // Correct text keeps its label: shouting, CamelCase names, a list of
    // them (three turned-over words, no capitalised one, in a reading
    // whose own case is natural).
    let kept = [
        "ВНИМАНИЕ! СРОЧНО ПРИШЛИТЕ ОТЧЁТ ДО ПЯТНИЦЫ.\n",
        "МосГорТранс, ВКонтакте, РосНефть, СберБанк\n",
        // Found by the measure (tools/hunt_latin_labels.py): ISO-8859-5
        // read as x-mac-cyrillic, `∞“вё≤∞Ј`, before the candidate had to
        // turn the case back.
        "АвтоВАЗ\nАвтоВАЗ\nРосНефть\n",
    ];
    for text in kept {
        for label in [
            "windows-1251",
            "koi8-r",
            "iso-8859-5",
            "x-mac-cyrillic",
            "ibm866",
        ] {
            let enc = Encoding::for_label(label.as_bytes()).expect("a known encoding");
            let bytes = encode(text, enc);
            let d = charset::decode(&bytes, Some(label.as_bytes()), &body_opts());
            assert_ne!(
                d.verdict,
                Verdict::Mislabeled,
                "{label}: {text}: {:?}",
                d.findings
            );
            assert_eq!(&*d.text, text, "{label}");
        }
    }
}

/// Central European text under a Western label, windows-1250 and ISO-8859-2
/// under each other's, and windows-1251 under ISO-8859-5: symbols inside
/// words (`Wroc³aw`, `¾lu»ouèký`, `Я№штхђ`) that the text's own charset
/// reads as letters. Through the library and the command line.
#[test]
fn regression_symbols_inside_words_are_read_as_their_letters() {
    let pl = "Cześć Paweł, dziękuję za szybką odpowiedź.\n\
              Spotkanie odbędzie się w środę we Wrocławiu.\n\
              Proszę przesłać poprawioną wersję umowy do piątku.\n\
              Zaliczka wynosi tysiąc złotych, reszta po odbiorze.\n";
    let cs = "Dobrý den, děkuji za rychlou odpověď, však jsem ji čekal.\n\
              Schůzka bude ve čtvrtek v Brně, žádné změny.\n\
              Příliš žluťoučký kůň úpěl ďábelské ódy.\n\
              Ještě pošlu všechny přílohy, až je dostanu.\n";
    let ru = "Привет, как дела? Всё хорошо, спасибо.\n\
              Встреча состоится в среду в Москве, в большом зале.\n\
              Пожалуйста, пришлите исправленную версию договора до пятницы.\n";
    let cases: &[(&str, &'static Encoding, &str, &str)] = &[
        (pl, encoding_rs::WINDOWS_1250, "iso-8859-1", "windows-1250"),
        (pl, encoding_rs::ISO_8859_2, "windows-1252", "ISO-8859-2"),
        (pl, encoding_rs::ISO_8859_2, "iso-8859-15", "ISO-8859-2"),
        (cs, encoding_rs::ISO_8859_2, "iso-8859-1", "ISO-8859-2"),
        // `š ž ť` are C1 controls in ISO-8859-2.
        (cs, encoding_rs::WINDOWS_1250, "iso-8859-2", "windows-1250"),
        (ru, encoding_rs::WINDOWS_1251, "iso-8859-5", "windows-1251"),
    ];
    for &(text, enc, label, name) in cases {
        assert_read_as_written(text, enc, label, name);
    }
}

/// Polish windows-1250 under ISO-8859-1 (the commonest Central European
/// lie: `ś ź` at 0x9C 0x9F, C1 controls there, `ł ą` as `³ ¹`) is read
/// as windows-1250 and reported as a lie, `mislabeled`, not as C1
/// controls in Latin-1. encoding_rs writes the octets.
#[test]
fn windows_1250_under_iso_8859_1_is_reported_as_mislabeled() {
    let pl = "Cześć Paweł, dziękuję za szybką odpowiedź.\n\
              Spotkanie odbędzie się w środę we Wrocławiu.\n";
    let bytes = encode(pl, encoding_rs::WINDOWS_1250);
    assert!(bytes.contains(&0x9C) && bytes.contains(&0x9F), "ś ź");
    let d = charset::decode(&bytes, Some(b"iso-8859-1"), &body_opts());
    assert_eq!(d.used.map(|c| c.name()), Some("windows-1250"));
    assert_eq!(&*d.text, pl);
    let kinds: Vec<_> = d.findings.iter().map(|f| f.kind).collect();
    assert!(kinds.contains(&FindingKind::Mislabeled), "{kinds:?}");
    let msg = message("text/plain; charset=iso-8859-1", &bytes);
    let (_, verdict, findings) = audit_body(&msg);
    assert_eq!(verdict, "mislabeled");
    assert!(findings.contains(&"mislabeled".to_string()), "{findings:?}");
}

/// Polish windows-1250 under a Western label, whose `ś` starts its words
/// (`środę`, 0x9C): ISO-8859-2, the twin of chardetng's windows-1250,
/// reads that octet as a C1 control, which begins the word, so no symbol
/// test saw it, and its reading "repaired" the symbols `¹ ³ ¿` as well
/// (`ą` as `š`): the label stayed, `tysi¹c z³otych` (`hunt_charsets.py`
/// seed 2026). A reading with C1 controls where the guess has letters is no
/// rival. The same text with only `ą ł ż` (no octet from 0x80 to 0x9F)
/// still keeps its label: there the two charsets cannot be told apart.
/// encoding_rs writes the octets and reads the expected text.
#[test]
fn regression_polish_with_s_acute_starting_words_is_read_as_windows_1250() {
    let pl = "Pozdrawiam serdecznie, Małgorzata Żak\n\
              Zaliczka wynosi tysiąc złotych, reszta po odbiorze.\n\
              Spotkanie odbędzie się w środę we Wrocławiu.\n\
              Proszę przesłać poprawioną wersję umowy do piątku.\n";
    let bytes = encode(pl, encoding_rs::WINDOWS_1250);
    let (oracle, _) = encoding_rs::WINDOWS_1250.decode_without_bom_handling(&bytes);
    assert_eq!(oracle, pl);
    let (twin, _) = encoding_rs::ISO_8859_2.decode_without_bom_handling(&bytes);
    assert!(twin.contains("\u{9c}rod"), "{twin}");
    for label in ["iso-8859-1", "windows-1252", "iso-8859-15"] {
        for tld in [None, Some("pl"), Some("com")] {
            let opts = DecodeOptions {
                tld: tld.and_then(|t| charset::Tld::from_domain(format!("example.{t}").as_bytes())),
                ..body_opts()
            };
            let d = charset::decode(&bytes, Some(label.as_bytes()), &opts);
            assert_eq!(
                d.verdict,
                Verdict::Mislabeled,
                "{label} {tld:?}: {:?}",
                d.findings
            );
            assert_eq!(
                d.used.map(|c| c.name()),
                Some("windows-1250"),
                "{label} {tld:?}"
            );
            assert_eq!(&*d.text, pl, "{label} {tld:?}");
        }
        assert_read_as_written(pl, encoding_rs::WINDOWS_1250, label, "windows-1250");
    }
    // Only `ą ł ż`: ISO-8859-2 reads `ą` as `š`, a letter too, and no C1
    // control. The label's reading has no letter beyond ASCII to weigh
    // the two against (`central_twin` needs one: ASCII text with symbols
    // wedged in is as likely); the label stays.
    let few = "Zaliczka wynosi tysiąc złotych, reszta po odbiorze.\n\
               Pozdrawiam serdecznie, Małgorzata Żak\n";
    let bytes = encode(few, encoding_rs::WINDOWS_1250);
    assert!(!bytes.iter().any(|b| (0x80..0xA0).contains(b)));
    let opts = DecodeOptions {
        tld: charset::Tld::from_domain(b"example.pl"),
        ..body_opts()
    };
    let d = charset::decode(&bytes, Some(b"iso-8859-1"), &opts);
    assert_ne!(d.verdict, Verdict::Mislabeled, "{:?}", d.findings);
}

/// Correct text with symbols between letters keeps its label: trademarks,
/// superscripts, `±`, the Spanish `¿`, apostrophes as `´`, the Catalan
/// `l·l`, UTF-8 read as Latin-1 already in the text (`Ã³`), `№` in Russian,
/// from a Polish sender too (chardetng's hint); Hungarian and Croatian in
/// windows-1250 under Latin-1 read as letters (`õ û`, `è æ`): no evidence.
#[test]
fn regression_symbols_between_letters_in_correct_text_keep_the_label() {
    // (Made-up tokens such as `x¹y a¹b p¼q Ma¿ana` together are what
    // Polish reads as letters in the case of their words: from a `.pl`
    // sender, chardetng then says ISO-8859-2, and they would be read so.)
    let west = "Microsoft®Windows and Microsoft®Office, Microsoft®Outlook.\n\
                H²O, CO²-Ausstoß, AB±CD, SI¿NO, 10¼in, Fußnote¹, 5×4.\n\
                don´t worry, it´s fine; col·lecció, instal·lar; guiÃ³n, fÃ¸r\n";
    for label in ["iso-8859-1", "windows-1252", "iso-8859-15"] {
        for tld in ["com", "pl", "cz"] {
            let opts = DecodeOptions {
                tld: charset::Tld::from_domain(format!("example.{tld}").as_bytes()),
                ..body_opts()
            };
            let enc = Encoding::for_label(label.as_bytes()).expect("a known encoding");
            // ISO-8859-15 has no `¼ ´ ¸`: left out, as a writer would have to.
            let west: String = west
                .chars()
                .filter(|c| !enc.encode(&c.to_string()).2)
                .collect();
            let bytes = encode(&west, enc);
            let d = charset::decode(&bytes, Some(label.as_bytes()), &opts);
            assert_ne!(
                d.verdict,
                Verdict::Mislabeled,
                "{label} .{tld}: {:?}",
                d.findings
            );
            assert_eq!(&*d.text, west.as_str(), "{label} .{tld}");
        }
    }
    let ru = "Заказ №5, счёт №17 от 1 мая.\nСтатья §4, пункт §2 договора.\n";
    for label in ["iso-8859-5", "windows-1251"] {
        let enc = Encoding::for_label(label.as_bytes()).expect("a known encoding");
        let bytes = encode(ru, enc);
        let d = charset::decode(&bytes, Some(label.as_bytes()), &body_opts());
        assert_ne!(d.verdict, Verdict::Mislabeled, "{label}: {:?}", d.findings);
        assert_eq!(&*d.text, ru, "{label}");
    }
    // Letters for letters: left as the label reads them.
    let hu = "Árvíztűrő tükörfúrógép, köszönöm a gyors választ.\n\
              A megbeszélés csütörtökön lesz Győrben, időben.\n";
    let bytes = encode(hu, encoding_rs::WINDOWS_1250);
    let d = charset::decode(&bytes, Some(b"iso-8859-1"), &body_opts());
    assert_ne!(d.verdict, Verdict::Mislabeled, "{:?}", d.findings);
}

/// windows-1256 under ISO-8859-6: errors where ISO-8859-6 has no letter
/// (`ف ق ك ي`), the rest other Arabic letters. Read as windows-1256; a
/// correct ISO-8859-6 text with a few damaged octets keeps its label.
#[test]
fn regression_windows_1256_under_iso_8859_6_is_read_as_itself() {
    let ar = "مرحبا، شكرا على الرد السريع.\n\
              سيكون الاجتماع يوم الخميس في القاهرة.\n\
              يرجى إرسال النسخة المعدلة من العقد قبل يوم الجمعة.\n";
    let bytes = encode(ar, encoding_rs::WINDOWS_1256);
    let d = charset::decode(&bytes, Some(b"iso-8859-6"), &body_opts());
    assert_eq!(d.verdict, Verdict::Mislabeled, "{:?}", d.findings);
    assert_eq!(d.used.map(|c| c.name()), Some("windows-1256"));
    assert_eq!(&*d.text, ar);
    let msg = message("text/plain; charset=iso-8859-6", &bytes);
    let (_, verdict, findings) = audit_body(&msg);
    assert_eq!(verdict, "mislabeled", "{findings:?}");
    assert_eq!(body_text(&filtered(&msg)), ar);
    // The same text in ISO-8859-6, one to six octets damaged.
    let mut own = encode(ar, encoding_rs::ISO_8859_6);
    for (n, at) in [7usize, 31, 55, 80, 99, 120].into_iter().enumerate() {
        if at < own.len() {
            own[at] = 0xFF;
        }
        let d = charset::decode(&own, Some(b"iso-8859-6"), &body_opts());
        assert_ne!(
            d.verdict,
            Verdict::Mislabeled,
            "{} damaged: {:?}",
            n + 1,
            d.findings
        );
        assert_eq!(d.used.map(|c| c.name()), Some("ISO-8859-6"));
    }
}

/// A Shift_JIS reply over a quote in EUC-JP reads under its label as
/// Japanese in the reply and half-width katakana in the quote: implausible
/// as a whole, so the text was taken for chardetng's guess, GBK, and the
/// correctly labelled reply became Hanzi nonsense. A reading with lines
/// of the label's own keeps the label; the quote's lines are named
/// (`mixed-charset`). (`tools/hunt_charsets.py` seed 404.)
#[test]
fn regression_shift_jis_reply_over_an_euc_jp_quote_keeps_its_label() {
    let reply =
        "田中様、いつもお世話になっております。\n先日の打ち合わせの件で、資料をお送りします。\n";
    let quote = "> 田中様、いつもお世話になっております。\n> ご不明な点がございましたら、お気軽にご連絡ください。\n";
    let body = [
        encoding_rs::SHIFT_JIS.encode(reply).0.into_owned(),
        b"\nOn Monday someone wrote:\n".to_vec(),
        encoding_rs::EUC_JP.encode(quote).0.into_owned(),
    ]
    .concat();
    let msg = message("text/plain; charset=shift_jis", &body);
    let (charset, verdict, findings) = audit_body(&msg);
    assert_eq!(charset.as_deref(), Some("Shift_JIS"));
    assert_eq!(verdict, "invalid");
    assert!(
        findings.contains(&"mixed-charset".to_string()),
        "{findings:?}"
    );
    let out = filtered(&msg);
    let m = mailcharset::message::Message::parse(&out);
    let text = String::from_utf8(m.root.decoded_body(&m).0.into_owned()).expect("UTF-8 out");
    assert!(text.starts_with(reply), "{text}");
}

/// Half-width katakana written as such under their own Shift_JIS or EUC-JP
/// label: text from old systems and mobile mail. A reading mostly of them
/// was doubted as another charset's marks: a Shift_JIS text only of them
/// from a `.com` sender was read as GBK (`蔬杰澳奚洼撼Φ榷薏枷絹B`,
/// `mislabeled`; an independent hunt, 2026-11-27: 19 of 100), an EUC-JP
/// one as Shift_JIS, GBK or Big5. Written as Japanese (voiced marks after
/// the kana that take them, `､ ･` not on every other character) and not
/// EUC-JP text, they are the label's.
#[test]
fn regression_half_width_katakana_under_their_japanese_label_are_not_gbk() {
    for (enc, label, name) in [
        (encoding_rs::SHIFT_JIS, "shift_jis", "Shift_JIS"),
        (encoding_rs::EUC_JP, "euc-jp", "EUC-JP"),
    ] {
        for text in HALF_WIDTH {
            assert_japanese_label_kept(text, enc, label, name);
        }
    }
    // EUC-JP under Shift_JIS is still read as EUC-JP, also when its kanji
    // alone read as katakana a writer could have written (`ｻｳﾅﾄﾂﾀﾏｺ` for
    // 山田太郎): EUC-JP reads those octets as common kanji.
    let names = "山田太郎\n東京本社営業部\n";
    let body = encode(names, encoding_rs::EUC_JP);
    let d = charset::decode(&body, Some(b"shift_jis"), &body_opts());
    assert_eq!(d.used.map(|c| c.name()), Some("EUC-JP"), "{:?}", d.findings);
    assert_eq!(&*d.text, names);
}

/// EUC-JP of first-level kanji and kana whose octets Shift_JIS reads
/// without error as half-width katakana a writer could have put there
/// (voiced marks in place, no kanji of level 2): under a Shift_JIS label
/// the text is EUC-JP's, which reads it as common Japanese. Strings of
/// the Japanese gettext catalogs (binutils, coreutils, wget), EUC-JP by
/// encoding_rs's encoder.
#[test]
fn euc_jp_that_shift_jis_reads_as_written_half_width_katakana_is_euc_jp() {
    for text in [
        "%s:%d: 不正な JSON 構文",
        "(不明な型)",
        "%s 失敗: 終了コード %d",
        "%d 個の接続",
        "%s: 循環名前参照です",
    ] {
        let body = encode(text, encoding_rs::EUC_JP);
        let sjis = encoding_rs::SHIFT_JIS
            .decode_without_bom_handling_and_without_replacement(&body)
            .expect("Shift_JIS reads every octet");
        assert!(
            sjis.chars()
                .all(|c| c.is_ascii() || ('\u{FF61}'..='\u{FF9F}').contains(&c)),
            "{sjis}"
        );
        let d = charset::decode(&body, Some(b"shift_jis"), &body_opts());
        assert_eq!(
            d.used.map(|c| c.name()),
            Some("EUC-JP"),
            "{text}: {:?}",
            d.findings
        );
        assert_eq!(&*d.text, text);
        assert_eq!(d.verdict, Verdict::Mislabeled, "{text}");
    }
}

/// Half-width katakana under their own Shift_JIS label whose octets
/// EUC-JP also decodes, as rare kanji (EUC-JP does not read them as
/// Japanese): they stay Shift_JIS, also where chardetng says EUC-JP.
/// Strings of the Japanese gettext catalogs (xkeyboard-config, glib)
/// with their katakana in half-width forms (Python's NFKC the mapping),
/// Shift_JIS by encoding_rs's encoder.
#[test]
fn half_width_katakana_that_euc_jp_decodes_as_rare_kanji_keep_shift_jis() {
    for text in [
        "ｲﾝﾀｰﾈｯﾄｷｰﾎﾞｰﾄﾞ",
        "Compaq ｲﾝﾀｰﾈｯﾄｷｰﾎﾞｰﾄﾞ (13 ｷｰ)",
        "ｻｰﾊﾞｰｱﾄﾞﾚｽ",
        "ｸﾞﾚｰﾄﾌﾞﾘﾃﾝ",
    ] {
        let body = encode(text, encoding_rs::SHIFT_JIS);
        assert!(
            encoding_rs::EUC_JP
                .decode_without_bom_handling_and_without_replacement(&body)
                .is_some(),
            "{text}"
        );
        assert_japanese_label_kept(text, encoding_rs::SHIFT_JIS, "shift_jis", "Shift_JIS");
    }
}

/// A line of half-width katakana below full-width Japanese, under its own
/// Shift_JIS or EUC-JP label, was named another charset's octets
/// (`mixed-charset`, verdict `invalid`; the hunt: 20 of 100), its text
/// kept. A Shift_JIS reply over an EUC-JP quote still has its quote named
/// (`regression_shift_jis_reply_over_an_euc_jp_quote_keeps_its_label`).
#[test]
fn regression_a_line_of_half_width_katakana_is_the_labels_own() {
    let ja = "いつもお世話になっております。山田です。\n";
    for (enc, label, name) in [
        (encoding_rs::SHIFT_JIS, "shift_jis", "Shift_JIS"),
        (encoding_rs::EUC_JP, "euc-jp", "EUC-JP"),
    ] {
        for kana in HALF_WIDTH {
            let text = format!("{ja}{kana}");
            assert_japanese_label_kept(&text, enc, label, name);
        }
    }
}

/// An unlabelled Japanese letter with a line or two of half-width katakana
/// (a company name, a greeting: `ｶﾌﾞｼｷｶﾞｲｼｬ ﾔﾏﾀﾞ`) was read as windows-1252
/// (`Ž‘—¿‚ð“Y•t`, a `.jp` sender too): chardetng guessed Shift_JIS (or
/// EUC-JP), but its reading, the katakana counted as another charset's
/// marks, was not plausible, and the Latin preference put windows-1252 in
/// its place. The katakana are written as Japanese, as under a label. The
/// CJK hunt (2026-11-28, seeds 1-3): 31 of 43 such letters wrong, 0 after.
#[test]
fn regression_unlabelled_japanese_with_half_width_katakana_is_not_windows_1252() {
    let ja = "資料を添付いたしましたので、ご査収ください。\n明日の打ち合わせは十時からです。\n\n";
    for (enc, name, tlds) in [
        (
            encoding_rs::SHIFT_JIS,
            "Shift_JIS",
            &["jp", "co.jp", "com", "cn"][..],
        ),
        (encoding_rs::EUC_JP, "EUC-JP", &["jp", "co.jp"][..]),
    ] {
        for kana in HALF_WIDTH {
            let text = format!("{ja}{kana}ｺﾝﾆﾁﾊ\n\n-- \n山田太郎\n");
            let body = encode(&text, enc);
            for tld in tlds {
                let opts = DecodeOptions {
                    tld: charset::Tld::from_domain(format!("example.{tld}").as_bytes()),
                    ..body_opts()
                };
                let d = charset::decode(&body, None, &opts);
                assert_eq!(d.used.map(|c| c.name()), Some(name), ".{tld} {text}");
                assert_eq!(&*d.text, text, ".{tld}");
            }
            // (A `.com` sender, through the filter: EUC-JP of long
            // katakana lines is chardetng's Big5 from there, left.)
            if name == "Shift_JIS" {
                let msg = message("text/plain", &body);
                assert_eq!(body_text(&filtered(&msg)), text);
            }
        }
    }
}

/// What [`regression_unlabelled_japanese_with_half_width_katakana_is_not_windows_1252`]
/// asks of chardetng's Japanese guess (`japanese_halfwidth`), from a `.jp`
/// sender: four half-width katakana or more, written as Japanese, none
/// against an ASCII letter, no kanji of level 2. Latin text (gettext
/// strings, windows-1252 by encoding_rs's encoder) has its capitals in
/// 0xC0..0xDF, Shift_JIS's half-width katakana, and stays windows-1252;
/// Japanese with ASCII words beside its katakana (file types of the
/// Japanese catalogs, katakana in half-width forms) stays Shift_JIS.
#[test]
fn half_width_katakana_of_a_japanese_guess_are_checked_where_they_stand() {
    let opts = DecodeOptions {
        tld: charset::Tld::from_domain(b"example.jp"),
        ..body_opts()
    };
    for text in [
        "Udløbsdato for konto (ÅÅÅÅ-MM-DD)",
        "Utlöpsdatum för kontot (ÅÅÅÅ-MM-DD)",
        "NÃO É UM EXECUTÁVEL DINÂMICO",
        "PÄIVITYSPÄIVÄMÄÄRÄT:",
        "ABCDE ABCDE ÀÈÌÒÙ €",
    ] {
        let body = encode(text, encoding_rs::WINDOWS_1252);
        let d = charset::decode(&body, None, &opts);
        assert_eq!(d.used.map(|c| c.name()), Some("windows-1252"), "{text}");
        assert_eq!(&*d.text, text);
    }
    for kana in ["AbiWord ﾄﾞｷｭﾒﾝﾄ", "Android ﾊﾟｯｹｰｼﾞ", "7-zip ｱｰｶｲﾌﾞ"]
    {
        let text = format!("{kana}\n山田です。\n");
        let body = encode(&text, encoding_rs::SHIFT_JIS);
        let d = charset::decode(&body, None, &opts);
        assert_eq!(d.used.map(|c| c.name()), Some("Shift_JIS"), "{text}");
        assert_eq!(&*d.text, text);
    }
}

/// Short unlabelled Korean with a syllable beyond KS X 1001's 2,350 (a
/// common misspelling, `됬` for `됐`; slang, `햏자`, `횽아`; `똠양꿍`), from a
/// sender outside `.kr`, was guessed Big5 and read as Hanzi (`됬습니다` as
/// four Big5 characters): chardetng scores such a syllable, and the one
/// after it, a fifth of a common one. windows-949 (encoding_rs's EUC-KR)
/// reads them as written. The CJK hunt (2026-11-28, 1,200 short and long
/// texts, body and raw Subject): 62 read as Big5 before are read as
/// written, none changed otherwise. Chinese whose windows-949 reading is
/// Hangul too (Big5 `烏爾都語` is `칀보끽퍈`, uncommon syllables) keeps
/// chardetng's guess.
#[test]
fn regression_short_korean_with_a_syllable_beyond_ks_x_1001_is_not_big5() {
    for text in [
        "됬습니다",
        "됬어요",
        "횽아 새 문자",
        "햏자 아카이브에서",
        "힣힣 볼 수 없는",
    ] {
        let body = encode(text, encoding_rs::EUC_KR);
        assert!(
            body.chunks(2)
                .any(|p| p[0] < 0xA1 || p.get(1).is_some_and(|&t| t < 0xA1)),
            "{text}: a syllable beyond KS X 1001"
        );
        for tld in ["com", "net", "kr"] {
            let opts = DecodeOptions {
                tld: charset::Tld::from_domain(format!("example.{tld}").as_bytes()),
                ..body_opts()
            };
            let d = charset::decode(&body, None, &opts);
            assert_eq!(d.used.map(|c| c.name()), Some("EUC-KR"), ".{tld} {text}");
            assert_eq!(&*d.text, text, ".{tld}");
        }
        let msg = message("text/plain", &body);
        assert_eq!(body_text(&filtered(&msg)), text);
    }
    for text in ["烏爾都語 (WinKeys)", "期望子模組 ", "戴爾 USB 多媒體"] {
        let body = encode(text, encoding_rs::BIG5);
        let opts = DecodeOptions {
            tld: charset::Tld::from_domain(b"example.com"),
            ..body_opts()
        };
        let d = charset::decode(&body, None, &opts);
        assert_ne!(d.used.map(|c| c.name()), Some("EUC-KR"), "{text}");
    }
}

/// Short unlabelled Japanese in Shift_JIS from outside `.jp` was guessed
/// windows-1252 by chardetng and converted as mojibake (`‰ÁŽZ‚Í–³—‚Å‚·`
/// for 加算は無理です): 55 of 2,960 one-sentence texts of the gettext
/// catalogs (2026-11-28). Such text is now Shift_JIS when Shift_JIS reads
/// it cleanly, all Japanese, a third or more hiragana
/// (`decide::shift_jis_kana`). Single-byte text whose octets pair up as
/// kana by chance (windows-1252's `‚` before a letter; Cyrillic and Greek
/// letters after 0x82) keeps chardetng's reading.
#[test]
fn regression_short_unlabelled_shift_jis_is_not_windows_1252() {
    for text in [
        "加算は無理です",
        "この値は変更できません",
        "ログを読めません",
    ] {
        let body = encode(text, encoding_rs::SHIFT_JIS);
        for tld in ["com", "org", "jp"] {
            let opts = DecodeOptions {
                tld: charset::Tld::from_domain(format!("example.{tld}").as_bytes()),
                ..body_opts()
            };
            let d = charset::decode(&body, None, &opts);
            assert_eq!(d.used.map(|c| c.name()), Some("Shift_JIS"), ".{tld} {text}");
            assert_eq!(&*d.text, text, ".{tld}");
        }
        let msg = message("text/plain", &body);
        assert_eq!(body_text(&filtered(&msg)), text);
    }
    for (text, enc) in [
        (
            "\u{201A}\u{e9}t\u{e9} \u{201A}\u{c0} la ligne",
            encoding_rs::WINDOWS_1252,
        ),
        (
            "\u{201A}\u{430}\u{431} \u{201A}\u{432}\u{433}",
            encoding_rs::WINDOWS_1251,
        ),
    ] {
        let body = encode(text, enc);
        let opts = DecodeOptions {
            tld: charset::Tld::from_domain(b"example.com"),
            ..body_opts()
        };
        let d = charset::decode(&body, None, &opts);
        assert_ne!(d.used.map(|c| c.name()), Some("Shift_JIS"), "{text}");
    }
    // The controls above hold octets Shift_JIS cannot read. These it reads
    // cleanly, as kana: Mac OS Roman capitals (octets windows-1252 reads
    // too) (`ÇÃ` is 0x82 0xCC, `の`;
    // `ÉC` is 0x83 0x43, a katakana with an ASCII trail), each kana alone
    // between Latin letters; without a kana beside another character, or
    // with ASCII trails only, they are no Japanese.
    for body in [
        &b"INFORMA\x82\xCCO INFORMA\x82\xCCO SOLU\x82\xCCO"[..],
        &b"PR\x83C\x83DENT R\x83P\x83TITION"[..],
    ] {
        assert!(
            encoding_rs::SHIFT_JIS
                .decode_without_bom_handling_and_without_replacement(body)
                .is_some()
        );
        let opts = DecodeOptions {
            tld: charset::Tld::from_domain(b"example.com"),
            ..body_opts()
        };
        // Unlabelled, and under windows-1252, which reads them cleanly
        // (`‚Ì`, `ƒC`): the label's rule for East Asian lies asks there.
        for label in [None, Some(&b"windows-1252"[..])] {
            let d = charset::decode(body, label, &opts);
            assert_ne!(
                d.used.map(|c| c.name()),
                Some("Shift_JIS"),
                "{label:?} {}",
                String::from_utf8_lossy(body)
            );
        }
    }
}

/// `octets` (the text `text` in an East Asian charset) under each of
/// `labels`, as a body and as a base64 encoded-word Subject, come out of
/// `filter` as `text`.
fn read_as_written_under(text: &str, octets: &[u8], labels: &[&str]) {
    use base64::Engine;
    for label in labels {
        let msg = message(&format!("text/plain; charset={label}"), octets);
        assert_eq!(body_text(&filtered(&msg)), text, "{label}");
        let b64 = base64::engine::general_purpose::STANDARD.encode(octets);
        let msg = format!(
            "From: a@example.com\nSubject: =?{label}?B?{b64}?=\nMessage-ID: <s@example.com>\n\nbody\n"
        );
        let out = filtered(msg.as_bytes());
        let m = mailcharset::message::Message::parse(&out);
        let subject = m.parts()[0].header.get("subject").expect("Subject");
        assert_eq!(
            mailcharset::mime::decode_unstructured(subject.value).text,
            text,
            "Subject under {label}"
        );
    }
}

/// A Latin name in UTF-8 under a Latin label whose two letters are two
/// common hanzi side by side in GBK (`ö` is C3 B6, GBK `枚`): the rule
/// for short Chinese under a Latin label read `Marek Sööt` as `Marek
/// S枚枚t`, hanzi inside a Latin word. Valid UTF-8 whose CJK reading sits
/// inside Latin words is not taken for it; two UTF-8 characters are too
/// few to override the label, whose reading stays (Faker's `et_EE`
/// surname `Sööt`, the Faker hunt, 2026-11-28: 5 of its lies).
#[test]
fn regression_utf8_latin_letters_under_a_latin_label_are_not_read_as_chinese() {
    read_as_written_under(
        "Marek S\u{C3}\u{B6}\u{C3}\u{B6}t and Sons",
        "Marek Sööt and Sons".as_bytes(),
        &["windows-1252", "iso-8859-1"],
    );
}

/// A short Japanese or Korean text under a Latin label (`iso-8859-1`,
/// `windows-1252`, `iso-8859-15`) that reads it cleanly was converted as
/// Latin mojibake (`ÆÄÀÏÀ» ¿­ ¼ö ¾ø½À´Ï´Ù`, `¥Õ¥¡¥¤¥ë¤ò³«¤±¤Þ¤»¤ó`), in bodies
/// and in encoded-word Subjects: too short for the rule of words of
/// non-ASCII characters (32 or more). One or two sentences of the gettext
/// catalogs under `iso-8859-1`, `windows-1252` and `iso-8859-2`,
/// 2026-11-28: Japanese 187 of 498 wrong → 3, Korean 190 of 508 → 68.
/// The corpus has one: a Pine attribution line, `[ks_c_5601-1987] 김한성
/// wrote:`, under ISO-8859-15, was `±èÇÑŒº`. Latin text keeps its label.
#[test]
fn regression_short_japanese_and_korean_under_a_latin_label_are_read_as_written() {
    let cases = [
        ("ファイルを開けません", encoding_rs::SHIFT_JIS),
        ("ファイルを開けません", encoding_rs::EUC_JP),
        ("添付をご確認ください", encoding_rs::EUC_JP),
        ("파일을 열 수 없습니다", encoding_rs::EUC_KR),
        (
            "On Wed, [ks_c_5601-1987] 김한성 wrote:",
            encoding_rs::EUC_KR,
        ),
    ];
    for (text, enc) in cases {
        let octets = encode(text, enc);
        read_as_written_under(
            text,
            &octets,
            &["iso-8859-1", "windows-1252", "iso-8859-15"],
        );
    }
    for text in [
        "Grüße aus Köln",
        "ÀÉÎÕÜ àéîõü",
        "Þjóðólfur",
        "OPÇÃO É ÚNICA",
    ] {
        let octets = encode(text, encoding_rs::WINDOWS_1252);
        let msg = message("text/plain; charset=iso-8859-1", &octets);
        assert_eq!(body_text(&filtered(&msg)), text);
    }
}

/// A short Chinese text under a Latin label that reads it cleanly was
/// converted as Latin mojibake (`ÎÞ·¨´ò¿ªÎÄ¼þ` for `无法打开文件` in GBK,
/// `µLªk¶}±ÒÀÉ®×` for `無法開啟檔案` in Big5), in bodies and in encoded-word
/// Subjects. One or two sentences of the Chinese gettext catalogs under
/// `iso-8859-1`, `windows-1252` and `iso-8859-2`, 2026-11-28, 600 GBK and
/// 600 Big5 texts, each as a body and as a Subject: GBK 415 wrong → 7,
/// Big5 522 → 68. Latin text keeps its label, capitals and the words
/// whose accented letters make one ideograph (`SLÓÐIN` is GBK `SL有IN`) too.
#[test]
fn regression_short_chinese_under_a_latin_label_is_read_as_written() {
    let cases = [
        ("无法打开文件", encoding_rs::GBK),
        ("请输入密码。", encoding_rs::GBK),
        ("無法開啟檔案", encoding_rs::BIG5),
        ("設定檔案已損壞", encoding_rs::BIG5),
    ];
    for (text, enc) in cases {
        let octets = encode(text, enc);
        read_as_written_under(
            text,
            &octets,
            &["iso-8859-1", "windows-1252", "iso-8859-15", "iso-8859-2"],
        );
    }
    for (text, enc, label) in [
        (
            "SLÓÐIN '%S' ER EKKI FULL SLÓÐ",
            encoding_rs::WINDOWS_1252,
            "iso-8859-1",
        ),
        ("OPÇÃO É ÚNICA", encoding_rs::WINDOWS_1252, "windows-1252"),
        (
            "LIITTÄÄ JA YHDISTÄÄ MÄÄRITELLYT",
            encoding_rs::WINDOWS_1252,
            "iso-8859-1",
        ),
        (
            "bajt s oktalnom vrijednošću",
            encoding_rs::ISO_8859_2,
            "iso-8859-2",
        ),
        (
            "ZĪMĒŠANAS PLANŠETES KARTĒŠANA",
            encoding_rs::ISO_8859_4,
            "iso-8859-4",
        ),
    ] {
        let octets = encode(text, enc);
        let msg = message(&format!("text/plain; charset={label}"), &octets);
        assert_eq!(body_text(&filtered(&msg)), text, "{label}");
    }
}

/// Half-width katakana as a writer puts them (the hunt's three texts).
const HALF_WIDTH: [&str; 3] = [
    "ﾊﾟｽﾜｰﾄﾞﾉﾍﾝｺｳｦｵﾈｶﾞｲｼﾏｽ。\n",
    "ｱﾘｶﾞﾄｳｺﾞｻﾞｲﾏｽ。ﾃﾞｰﾀﾍﾞｰｽﾉｾｯﾃｲｦｶｸﾆﾝｼﾃｸﾀﾞｻｲ。\n",
    "ｶﾌﾞｼｷｶﾞｲｼｬ ﾔﾏﾀﾞ ｼｮｳｼﾞ\n",
];

/// `text` written in `enc` under its own `label` is read as written,
/// charset `name`, verdict `ok`, whatever the sender's top-level domain:
/// through the library, the audit and the filter.
fn assert_japanese_label_kept(text: &str, enc: &'static Encoding, label: &str, name: &str) {
    let body = encode(text, enc);
    for tld in ["com", "jp", "cn", "tw", "kr"] {
        let opts = DecodeOptions {
            tld: charset::Tld::from_domain(format!("example.{tld}").as_bytes()),
            ..body_opts()
        };
        let d = charset::decode(&body, Some(label.as_bytes()), &opts);
        let what = format!("{label} .{tld} {text}");
        assert_eq!(
            d.used.map(|c| c.name()),
            Some(name),
            "{what}: {:?}",
            d.findings
        );
        assert_eq!(&*d.text, text, "{what}");
        assert_eq!(d.verdict, Verdict::Ok, "{what}: {:?}", d.findings);
    }
    let msg = message(&format!("text/plain; charset={label}"), &body);
    let (charset, verdict, findings) = audit_body(&msg);
    assert_eq!(charset.as_deref(), Some(name));
    assert_eq!(verdict, "ok", "{label} {text}: {findings:?}");
    assert_eq!(body_text(&filtered(&msg)), text);
}

/// Shift_JIS or EUC-JP octets under an ISO-2022-JP label (a common lie in
/// Japanese mail) from a sender whose top-level domain is not Japanese:
/// chardetng's hint took them for GBK, Big5 or windows-1251, and the
/// Japanese text was converted into nonsense (`tools/hunt_clients.py`,
/// `lie-third-reading`). The label says the writer is Japanese; the
/// candidate is guessed as for a `.jp` sender.
#[test]
fn regression_japanese_under_iso_2022_jp_from_any_domain_is_read_as_written() {
    let ja = "株式会社テスト 営業部 田中太郎\n資料を添付しましたので、ご確認ください。\n以上、よろしくお願い致します。\n";
    for (enc, name) in [
        (encoding_rs::SHIFT_JIS, "Shift_JIS"),
        (encoding_rs::EUC_JP, "EUC-JP"),
    ] {
        for dom in [
            "example.cn",
            "example.com.tw",
            "example.com.ua",
            "example.co.kr",
            "example.ru",
            "example.com",
        ] {
            let msg = [
                format!(
                    "From: user@{dom}\nTo: b@example.org\nSubject: test\nMessage-ID: <t@{dom}>\n\
                     MIME-Version: 1.0\nContent-Type: text/plain; charset=ISO-2022-JP\n\
                     Content-Transfer-Encoding: 8bit\n\n"
                )
                .into_bytes(),
                enc.encode(ja).0.into_owned(),
            ]
            .concat();
            let (_, verdict, _) = audit_body(&msg);
            assert_eq!(verdict, "mislabeled", "{name} from {dom}");
            let out = filtered(&msg);
            let m = mailcharset::message::Message::parse(&out);
            let text =
                String::from_utf8(m.root.decoded_body(&m).0.into_owned()).expect("UTF-8 out");
            assert_eq!(text, ja, "{name} from {dom}");
        }
    }
}

/// windows-1252 German or Spanish under `us-ascii` (Outlook's label for
/// text it thought ASCII), without a label, or under `unknown-8bit`, from a
/// `.cn`, `.hk` or `.tw` sender: chardetng's guess with that hint is GBK or
/// Big5, whose reading puts one Hanzi inside each Latin word (`Gr鲞e aus
/// M黱chen`, one of them private use), and it was taken
/// (`tools/hunt_clients.py`, `lie-third-reading`, `info-unlabelled-guess`).
/// A non-Latin reading whose letters sit alone between ASCII letters is not
/// words: windows-1252, as for a Latin guess.
#[test]
fn regression_latin_text_from_a_chinese_domain_is_not_read_as_hanzi_inside_words() {
    let texts = [
        "Meeting moved to 3 pm.\nGrüße aus München, die Größe ist übrigens 42.\n",
        "Hola,\nEl año próximo, señor Muñoz.\nGracias\n",
        "Name;Stadt;Betrag\nMüller;Köln;1.234,50\nGarcía;Málaga;99,00\n",
    ];
    for text in texts {
        let bytes = encoding_rs::WINDOWS_1252.encode(text).0.into_owned();
        for ct in [
            "text/plain; charset=us-ascii",
            "text/plain",
            "text/plain; charset=unknown-8bit",
        ] {
            for dom in ["example.cn", "example.com.hk", "example.com.tw"] {
                let msg = [
                    format!(
                        "From: user@{dom}\nTo: b@example.org\nSubject: test\nMessage-ID: <t@{dom}>\n\
                         MIME-Version: 1.0\nContent-Type: {ct}\nContent-Transfer-Encoding: 8bit\n\n"
                    )
                    .into_bytes(),
                    bytes.clone(),
                ]
                .concat();
                let (charset, _, _) = audit_body(&msg);
                let out = filtered(&msg);
                let m = mailcharset::message::Message::parse(&out);
                let got =
                    String::from_utf8(m.root.decoded_body(&m).0.into_owned()).expect("UTF-8 out");
                assert_eq!(got, text, "{ct} from {dom}, audit charset {charset:?}");
            }
        }
    }
}

/// The other side: Chinese text without a label, with English words inside
/// it (`使用Linux系统`), from a `.cn` sender is still read as GBK.
#[test]
fn chinese_with_english_words_without_a_label_is_still_gbk() {
    let text = "您好，请在Linux系统上安装PDF阅读器，然后打开附件。\n我们明天下午三点开会，讨论下一步的计划。\n";
    let bytes = encoding_rs::GBK.encode(text).0.into_owned();
    let msg = [
        b"From: user@example.cn\nTo: b@example.org\nSubject: test\nMIME-Version: 1.0\n\
          Content-Type: text/plain\nContent-Transfer-Encoding: 8bit\n\n"
            .to_vec(),
        bytes,
    ]
    .concat();
    let out = filtered(&msg);
    let m = mailcharset::message::Message::parse(&out);
    let got = String::from_utf8(m.root.decoded_body(&m).0.into_owned()).expect("UTF-8 out");
    assert_eq!(got, text);
}

/// `charset=cp932` (Windows-31J under the name Python, Java and Windows
/// give it) was an unknown label: its text went to detection, and from a
/// `.cn` sender Japanese came out as GBK nonsense (`tools/hunt_clients.py`).
/// It is an alias of Windows-31J now, read as labelled wherever it comes
/// from; likewise Java's `x-windows-949` and the code page numbers of
/// Big5, KOI8-R/U, windows-874 and GB18030.
#[test]
fn regression_cp932_is_windows_31j_whatever_the_domain() {
    let ja = "①資料確認 ②見積もり\nお世話になっております。\n";
    for (label, dom) in [
        ("cp932", "example.cn"),
        ("CP932", "example.com.tw"),
        ("cp932", "example.jp"),
    ] {
        let msg = [
            format!(
                "From: user@{dom}\nTo: b@example.org\nSubject: test\nMIME-Version: 1.0\n\
                 Content-Type: text/plain; charset={label}\nContent-Transfer-Encoding: 8bit\n\n"
            )
            .into_bytes(),
            encoding_rs::SHIFT_JIS.encode(ja).0.into_owned(),
        ]
        .concat();
        let (charset, verdict, _) = audit_body(&msg);
        assert_eq!(
            (charset.as_deref(), verdict.as_str()),
            (Some("Windows-31J"), "ok"),
            "{label} from {dom}"
        );
        let out = filtered(&msg);
        let m = mailcharset::message::Message::parse(&out);
        let got = String::from_utf8(m.root.decoded_body(&m).0.into_owned()).expect("UTF-8 out");
        assert_eq!(got, ja, "{label} from {dom}");
    }
    for (label, name) in [
        ("x-windows-949", "EUC-KR"),
        ("cp950", "Big5"),
        ("cp874", "windows-874"),
        ("cp20866", "KOI8-R"),
        ("cp21866", "KOI8-U"),
        ("cp54936", "GB18030"),
    ] {
        let d = charset::decode(b"ok", Some(label.as_bytes()), &body_opts());
        assert_eq!(d.used.map(|c| c.name()), Some(name), "{label}");
    }
}

/// A short UTF-8 text under KOI8-R with one character whose second octet
/// is where KOI8-U has a Ukrainian letter (Danish `æ`, C3 A6: KOI8-R
/// `ц╕`; Portuguese `ç`, Slovak `ý`) was read as KOI8-U, `giver tціnker
/// fra`: neither the text nor the label's reading. A Ukrainian word is
/// never glued to a Latin one;
/// one UTF-8 character is too little to override a label, so the label's
/// reading stays. (wordfreq's `da` words, the Faker hunt, 2026-11-28: 117
/// of 1,334 UTF-8 texts under KOI8-R read as KOI8-U, 0 after.)
#[test]
fn regression_utf8_under_koi8_r_is_not_read_as_koi8_u_beside_latin_letters() {
    for (reading, text) in [
        ("giver tц╕nker fra", "giver tænker fra"),
        ("educaц╖цёo das", "educação das"),
        ("Sestra, dospelц╫", "Sestra, dospelý"),
    ] {
        read_as_written_under(reading, text.as_bytes(), &["koi8-r"]);
    }
}

/// Ukrainian in KOI8-U under a KOI8-R label (a Russian-configured mailer, a
/// list that labels everything KOI8-R): KOI8-R reads `і ї є ґ` as box
/// drawing glued to their words (`Прив╕т, друз╕!`), verdict `ok`, and a
/// short text never had the three symbols between letters the symbols rule
/// asks for (`tools/hunt_clients.py`, `info-lie-missed-koi8u-as-koi8r`: 14
/// of 18 missed). Russian KOI8-R, with a box-drawn table or a few damaged
/// octets, keeps its label.
#[test]
fn regression_ukrainian_koi8_u_under_koi8_r_is_read_as_koi8_u() {
    let uk = "Привіт, друзі!\nДякую за інформацію, все гаразд.\nЇжак і єнот сидять на ґанку.\nЗ повагою, Олена Євтушенко\n";
    let bytes = encoding_rs::KOI8_U.encode(uk).0.into_owned();
    let msg = message("text/plain; charset=koi8-r", &bytes);
    let (_, verdict, _) = audit_body(&msg);
    assert_eq!(verdict, "mislabeled");
    let out = filtered(&msg);
    let m = mailcharset::message::Message::parse(&out);
    let got = String::from_utf8(m.root.decoded_body(&m).0.into_owned()).expect("UTF-8 out");
    assert_eq!(got, uk);

    // Russian with a table in box drawing: KOI8-R as labelled.
    let ru = "Привет, коллеги!\n╔════════╗\n║Отчёт   ║\n╚════════╝\n┌──────┐\n│Итого │\n└──────┘\nВсего хорошего.\n";
    let bytes = encoding_rs::KOI8_R.encode(ru).0.into_owned();
    assert_eq!(
        encoding_rs::KOI8_R.decode_without_bom_handling(&bytes).0,
        ru
    );
    let d = charset::decode(&bytes, Some(b"koi8-r"), &body_opts());
    assert_eq!((d.text.as_ref(), d.verdict.as_str()), (ru, "ok"));
    // Russian with three octets damaged into KOI8-U's letters: damage, not
    // Ukrainian (the label stays when another box drawing touches a word).
    let mut dam = encoding_rs::KOI8_R
        .encode("Привет, коллеги! Отчёт за неделю готов.\n")
        .0
        .into_owned();
    dam[2] = 0xA6;
    dam[10] = 0xA7;
    dam[20] = 0xA1;
    let d = charset::decode(&dam, Some(b"koi8-r"), &body_opts());
    assert_eq!(d.used.map(|c| c.name()), Some("KOI8-R"));

    // One or two such letters with no other box drawing in the text
    // (`/tmp/hunt8` h_koi8u.py: 280 of 478 catalog strings missed): read as
    // KOI8-U, `suspicious`, not `mislabeled` (a damaged octet in Russian
    // looks the same). A lone `і` ("and") or `є` ("is") between words counts.
    for (uk, n) in [
        (
            "Пропоновані пакунки:
",
            1,
        ),
        (
            "Дадра і Нагар Хавелі
",
            2,
        ),
        (
            "вказати параметри PARSER і COPY одночасно не можна
",
            1,
        ),
        (
            "Операнд .inst.n є надто великим.
",
            1,
        ),
    ] {
        let bytes = encoding_rs::KOI8_U.encode(uk).0.into_owned();
        let d = charset::decode(&bytes, Some(b"koi8-r"), &body_opts());
        assert_eq!(
            (d.text.as_ref(), d.verdict.as_str()),
            (uk, "suspicious"),
            "{uk}"
        );
        assert!(
            d.findings.iter().any(|f| f
                .note
                .as_deref()
                .is_some_and(|s| s.contains(&format!("{n} box-drawing")))),
            "{uk}: {:?}",
            d.findings
        );
    }
    // Beside a table, one is not enough.
    let mixed = format!("{ru}Пропоновані пакунки\n");
    let bytes = encoding_rs::KOI8_U.encode(&mixed).0.into_owned();
    let d = charset::decode(&bytes, Some(b"koi8-r"), &body_opts());
    assert_eq!(d.used.map(|c| c.name()), Some("KOI8-R"));
}

/// A raw 8-bit Subject in Shift_JIS (or an unlabelled Big5 body) from a
/// sender whose domain misleads chardetng (`.tw` for Japanese): its guess
/// did not read plausibly, the fallback windows-1252 did read every octet,
/// with C1 controls for the octets it has no character for
/// (`ˆÈ\u{8f}ã\u{81}A‚æ‚ë`), and that went out as the Subject
/// (`tools/hunt_clients.py`, `info-subject-raw8-guess`). Such a reading is
/// no Latin text: chardetng's guess without the hint is taken when it
/// reads plausibly, in words.
#[test]
fn regression_raw_shift_jis_subject_from_a_tw_sender_is_not_windows_1252() {
    let subject = "以上、よろしくお願い致します。";
    let msg = [
        b"From: user@example.com.tw\r\nSubject: ".to_vec(),
        encoding_rs::SHIFT_JIS.encode(subject).0.into_owned(),
        b"\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\nhello\r\n"
            .to_vec(),
    ]
    .concat();
    let out = filtered(&msg);
    let m = mailcharset::message::Message::parse(&out);
    let field = m.parts()[0].header.get("subject").expect("Subject");
    assert!(field.value.is_ascii(), "written as encoded-words");
    assert_eq!(
        mailcharset::mime::decode_unstructured(field.value).text,
        subject
    );
}

/// `x-user-defined` names the sender's local code page, as `unknown-8bit`
/// names some charset: in mail the text is read by detection (French
/// windows-1252 reads as written, `missing-label`), not as WHATWG's
/// private-use characters, which a reader shows as boxes. The codec alone
/// (detection off, `mailcharset decode --charset x-user-defined`) keeps
/// WHATWG's decoder, checked against encoding_rs.
#[test]
fn regression_x_user_defined_in_mail_is_read_by_detection() {
    let text = "Voilà le résumé de la réunion de mardi, à Genève, après le déjeuner.\r\n";
    let (bytes, _, _) = encoding_rs::WINDOWS_1252.encode(text);
    let d = charset::decode(&bytes, Some(b"x-user-defined"), &body_opts());
    assert_eq!(d.text, text);
    assert!(
        d.findings
            .iter()
            .any(|f| f.kind == FindingKind::MissingLabel),
        "{:?}",
        d.findings
    );
    assert_ne!(d.verdict, Verdict::Ok);
    let codec = DecodeOptions {
        detect: false,
        ..DecodeOptions::default()
    };
    let d = charset::decode(&bytes, Some(b"x-user-defined"), &codec);
    let (whatwg, _) = encoding_rs::X_USER_DEFINED.decode_without_bom_handling(&bytes);
    assert_eq!(d.text, whatwg);
    assert!(d.text.contains('\u{F7E0}'), "à is U+F7E0 to WHATWG");
}

/// A UTF-8 list footer appended to a Latin-1 letter (Mailman, a gateway):
/// the label read the footer as mojibake (`Â« â€” dÃ©sinscription`), now
/// its lines are read as UTF-8 and named `mixed-charset`; the letter keeps
/// its label. A Latin-1 line that is valid UTF-8 by chance (`GROß“` is
/// NKo `ߓ` to UTF-8) and a footer of two UTF-8 characters keep the label.
#[test]
fn regression_a_utf8_footer_under_a_latin1_label_is_read_as_utf8() {
    let letter = "Voilà le résumé de la réunion de mardi, à Genève.\r\n--\r\n";
    let footer =
        "Liste de diffusion « utilisateurs » — désinscription : https://liste.example.fr/\r\n";
    let mut bytes = encoding_rs::WINDOWS_1252.encode(letter).0.into_owned();
    bytes.extend_from_slice(footer.as_bytes());
    let d = charset::decode(&bytes, Some(b"iso-8859-1"), &body_opts());
    assert_eq!(d.text, format!("{letter}{footer}"));
    assert!(
        d.findings
            .iter()
            .any(|f| f.kind == FindingKind::MixedCharset && f.count == 1),
        "{:?}",
        d.findings
    );
    // Latin-1 text that is valid UTF-8 on one line by chance.
    let (own, _, _) = encoding_rs::WINDOWS_1252
        .encode("Schöne Grüße aus Köln.\r\nSPASS MIT DEM GROß“ UND SO\r\n");
    let d = charset::decode(&own, Some(b"iso-8859-1"), &body_opts());
    assert_eq!(
        d.text,
        "Schöne Grüße aus Köln.\r\nSPASS MIT DEM GROß“ UND SO\r\n"
    );
    // Two UTF-8 characters are too few to tell.
    let mut few = encoding_rs::WINDOWS_1252.encode(letter).0.into_owned();
    few.extend_from_slice("François Lévesque\r\n".as_bytes());
    let d = charset::decode(&few, Some(b"iso-8859-1"), &body_opts());
    assert!(d.text.ends_with("FranÃ§ois LÃ©vesque\r\n"), "{}", d.text);
}

/// The reverse: a Latin-1 list footer appended to a UTF-8 letter. Its
/// accents were U+FFFD unless `--repair-mixed`; a line of two or more
/// letters in words of another charset, not shaped like damaged UTF-8, is
/// now read in it by default (`mixed-charset`, "read as such",
/// `suspicious`: nothing is left damaged). Damage stays U+FFFD: one
/// stray Latin-1 letter, two stray octets side by side, a UTF-8 character
/// whose second octet was lost (`C3` alone).
#[test]
fn regression_a_latin1_footer_under_a_utf8_label_is_read_as_latin1() {
    let letter = "Bonjour à tous, voici le résumé de la réunion.\n";
    let footer = "Désinscription de la liste à l'adresse : https://liste.example.fr/\n";
    let bytes = [
        letter.as_bytes(),
        &encode(footer, encoding_rs::WINDOWS_1252),
    ]
    .concat();
    let d = charset::decode(&bytes, Some(b"utf-8"), &body_opts());
    assert_eq!(d.text, format!("{letter}{footer}"));
    assert_eq!(d.verdict, Verdict::Suspicious, "{:?}", d.findings);
    let mixed = mixed_finding(&d);
    assert_eq!(
        (mixed.offset, mixed.count),
        (letter.len() + 1, 1),
        "{mixed:?}"
    );
    let msg = message("text/plain; charset=utf-8", &bytes);
    assert_eq!(body_text(&filtered(&msg)), format!("{letter}{footer}"));
    let (cs, verdict, _) = audit_body(&msg);
    assert_eq!(
        (cs.as_deref(), verdict.as_str()),
        (Some("UTF-8"), "suspicious")
    );
    for (what, tail) in [
        ("one letter", b"Jos\xe9 Garcia\n".as_slice()),
        ("two stray octets", b"x\xff\x80y\n"),
        ("a lost octet", b"Gr\xc3 \xc3 la vie\n"),
        ("a damaged lead", b"Die gro\xf5\x9fen Fragen\n"),
    ] {
        let body = [letter.as_bytes(), tail].concat();
        let d = charset::decode(&body, Some(b"utf-8"), &body_opts());
        assert_eq!(d.verdict, Verdict::Invalid, "{what}: {:?}", d.findings);
        assert!(d.text.starts_with(letter), "{what}: {}", d.text);
        assert!(d.text.contains('\u{FFFD}'), "{what}: {}", d.text);
    }
}

/// The same without a label: an unlabelled UTF-8 letter with a Latin-1
/// list footer below it was read as damaged UTF-8, U+FFFD for each accent
/// of the footer (`Fu\u{FFFD}zeile`). Its lines are read as under a UTF-8
/// label now; damage stays U+FFFD.
#[test]
fn regression_a_latin1_footer_below_unlabelled_utf8_is_read_as_latin1() {
    let letter = "Hallo Jürgen, schöne Grüße aus Köln und München.\n";
    let footer = "Fußzeile der Liste: Abmelden unter http://liste.example/ für immer.\n";
    let bytes = [
        letter.as_bytes(),
        &encode(footer, encoding_rs::WINDOWS_1252),
    ]
    .concat();
    let d = charset::decode(&bytes, None, &body_opts());
    assert_eq!(d.text, format!("{letter}{footer}"), "{:?}", d.findings);
    assert_eq!(d.verdict, Verdict::Suspicious, "{:?}", d.findings);
    let mixed = mixed_finding(&d);
    assert_eq!(
        (mixed.offset, mixed.count),
        (letter.len() + 2, 1),
        "{mixed:?}"
    );
    let msg = message("text/plain", &bytes);
    assert_eq!(body_text(&filtered(&msg)), format!("{letter}{footer}"));
    for (what, tail) in [
        ("one letter", b"Jos\xe9 Garcia\n".as_slice()),
        ("two stray octets", b"x\xff\x80y\n"),
        ("a lost octet", b"Gr\xc3 \xc3 la vie\n"),
    ] {
        // (Two lines of the letter: UTF-8 explains the text, four of its
        // characters to an error.)
        let body = [letter.repeat(2).as_bytes(), tail].concat();
        let d = charset::decode(&body, None, &body_opts());
        assert_eq!(d.used.map(|c| c.name()), Some("UTF-8"), "{what}");
        assert!(d.text.starts_with(letter), "{what}: {}", d.text);
        assert!(d.text.contains('\u{FFFD}'), "{what}: {}", d.text);
        assert!(
            !d.findings
                .iter()
                .any(|f| f.kind == FindingKind::MixedCharset),
            "{what}"
        );
    }
}

/// And the other way: a UTF-8 signature below an unlabelled Latin-1
/// letter was read as windows-1252 with the letter (`JosÃ© PÃ©rez`); its
/// lines are read as UTF-8, as under a Latin label.
#[test]
fn regression_a_utf8_signature_below_unlabelled_latin1_is_read_as_utf8() {
    let letter = "Hallo Jürgen, schöne Grüße aus Köln und München.\nBis bald.\n-- \n";
    let sig = "José Pérez — Geschäftsführer\n";
    let latin = encode(letter, encoding_rs::WINDOWS_1252);
    let bytes = [&latin, sig.as_bytes()].concat();
    let d = charset::decode(&bytes, None, &body_opts());
    assert_eq!(d.text, format!("{letter}{sig}"), "{:?}", d.findings);
    assert_eq!(d.used.map(|c| c.name()), Some("windows-1252"));
    let mixed = mixed_finding(&d);
    assert_eq!(
        (mixed.offset, mixed.count),
        (latin.len() + 3, 1),
        "{mixed:?}"
    );
    let msg = message("text/plain", &bytes);
    assert_eq!(body_text(&filtered(&msg)), format!("{letter}{sig}"));
}

/// A KOI8-R quote in a UTF-8 reply: `Ещё` has `ё` (0xA3) after a letter,
/// the shape of a UTF-8 character, now and then; the quote is read as
/// KOI8-R all the same (it was U+FFFD for every letter).
#[test]
fn regression_a_koi8_r_quote_in_a_utf8_reply_is_read_as_koi8_r() {
    let reply = "Добрый день! Да, всё в порядке.\n\n";
    let quote = "> Ещё нужно обсудить смету на следующий год.\n> Встреча будет в четверг.\n";
    let body = [reply.as_bytes(), &encode(quote, encoding_rs::KOI8_R)].concat();
    let d = charset::decode(&body, Some(b"utf-8"), &body_opts());
    assert_eq!(d.text, format!("{reply}{quote}"), "{:?}", d.findings);
    assert_eq!(d.verdict, Verdict::Suspicious);
}

/// Valid UTF-8 of two characters under a label that fails on those
/// octets: `회의` under EUC-KR (an error and two Hanja), `Ángel Pérez` under
/// windows-1252 (0x81 is a C1 control). Too few to override a label that
/// reads them cleanly (`MÃ¼ller` stays), but here the label explains
/// nothing: read as UTF-8, `mislabeled`. One character is what a damaged
/// octet after a letter makes (`Ã` and 0x80 under ISO-8859-13): kept.
#[test]
fn regression_short_utf8_under_a_label_that_fails_on_it_is_utf8() {
    for (text, label) in [("회의", "euc-kr"), ("Ángel Pérez", "windows-1252")] {
        let d = charset::decode(
            text.as_bytes(),
            Some(label.as_bytes()),
            &DecodeOptions::default(),
        );
        assert_eq!(
            (&*d.text, d.verdict),
            (text, Verdict::Mislabeled),
            "{label}"
        );
        let b64 = {
            use base64::Engine;
            base64::engine::general_purpose::STANDARD.encode(text)
        };
        let msg = format!("From: a@example.kr\nSubject: =?{label}?B?{b64}?=\n\nbody\n");
        let out = filtered(msg.as_bytes());
        let m = mailcharset::message::Message::parse(&out);
        let subject = m.parts()[0].header.get("subject").expect("Subject");
        assert_eq!(
            mailcharset::mime::decode_unstructured(subject.value).text,
            text
        );
    }
    // Decomposed accents (a Mac's NFD: `e` and U+0301, `CC 81`, a C1
    // control under ISO-8859-1) are UTF-8's too.
    let text = "Ce\u{301}line Rene\u{301}e";
    let d = charset::decode(
        text.as_bytes(),
        Some(b"iso-8859-1"),
        &DecodeOptions::default(),
    );
    assert_eq!((&*d.text, d.verdict), (text, Verdict::Mislabeled), "{text}");
    // But not a two-octet sign of another script that damage after a
    // letter of the label's makes: ISO-8859-2 `IŞIK TŰZ` with 0xC6 before
    // `Ş` and 0x94 after `Ű` is UTF-8's `IƪIK T۔Z` (an Arabic full stop;
    // the property test `latin_text_under_its_latin_label_never_flips`,
    // one run in 150). The label's reading stands, the damage reported.
    let mut bytes = encoding_rs::ISO_8859_2.encode("IŞIK TŰZ\n").0.into_owned();
    bytes.insert(1, 0xC6);
    bytes.insert(8, 0x94);
    assert_eq!(std::str::from_utf8(&bytes), Ok("IƪIK T۔Z\n"));
    let d = charset::decode(&bytes, Some(b"iso-8859-2"), &DecodeOptions::default());
    assert_ne!(d.verdict, Verdict::Mislabeled, "{:?}", d.findings);
    assert_eq!(d.used, charset::Charset::for_label(b"iso-8859-2"));
    let d = charset::decode(
        "Müller".as_bytes(),
        Some(b"windows-1252"),
        &DecodeOptions::default(),
    );
    assert_eq!((&*d.text, d.verdict), ("MÃ¼ller", Verdict::Suspicious));
    // Two characters the label reads as a capital and a symbol wedged into
    // words of small ASCII letters (`JÃ¼rgen MÃ¼ller`, `rÃ©union prÃ©vue`), or
    // with a C1 octet under ISO-8859-1 (`GrÃ¼ÃŸe`: 0x9F names nothing in
    // ISO-8859-1): the label explains nothing UTF-8 does not. An
    // independent hunt (/tmp/hunt29 a5.py): 38 of 80 such Subjects and
    // display names were mojibake, `suspicious`.
    for (text, label) in [
        ("Jürgen Müller", "iso-8859-1"),
        ("Grüße aus Wien", "iso-8859-1"),
        (
            "le compte rendu de la réunion prévue vendredi",
            "windows-1252",
        ),
        ("Résumé", "iso-8859-15"),
        // Three octets each, one of them 0x9A (C1 in ISO-8859-1).
        ("会議", "iso-8859-1"),
    ] {
        let d = charset::decode(text.as_bytes(), Some(label.as_bytes()), &body_opts());
        assert_eq!(
            (&*d.text, d.verdict),
            (text, Verdict::Mislabeled),
            "{label}"
        );
    }
    // Correct windows-1252 and ISO-8859-15 whose pairs UTF-8 reads as no
    // Latin letter (a review: `Strauß’s` as NKo `Strauߒs`, `NESTLÉ™` as
    // IPA `NESTLə`, `Gruß€` as Syriac): the label's.
    for (text, label, enc) in [
        (
            "Strauß’s waltz and Weiß’s book\n",
            "windows-1252",
            encoding_rs::WINDOWS_1252,
        ),
        (
            "NESTLÉ™ and CAFÉ™ products\n",
            "iso-8859-1",
            encoding_rs::WINDOWS_1252,
        ),
        (
            "Gruß—Hans, Spaß—ok\n",
            "windows-1252",
            encoding_rs::WINDOWS_1252,
        ),
        (
            "Mit freundlichem Gruß\u{a0}\nPeter Weiß\u{a0}\n",
            "iso-8859-1",
            encoding_rs::WINDOWS_1252,
        ),
        ("Gruß€ Spaß€\n", "iso-8859-15", encoding_rs::ISO_8859_15),
    ] {
        let bytes = enc.encode(text).0.into_owned();
        assert!(
            std::str::from_utf8(&bytes).is_ok(),
            "{text}: valid UTF-8 by chance"
        );
        let d = charset::decode(&bytes, Some(label.as_bytes()), &body_opts());
        assert_eq!(&*d.text, text, "{label}");
        assert_ne!(d.verdict, Verdict::Mislabeled, "{label}: {:?}", d.findings);
    }
    // A capital and a symbol standing as a word of their own, no C1 octet:
    // no word to be wedged into; the label's (`Â© ACME`).
    let d = charset::decode(
        b"Copyright \xc2\xa9 2024 ACME and \xc2\xae marks\n",
        Some(b"iso-8859-1"),
        &body_opts(),
    );
    assert_ne!(d.verdict, Verdict::Mislabeled, "{:?}", d.findings);
    let d = charset::decode(
        b"3pm\xc3\x80\n",
        Some(b"iso-8859-13"),
        &DecodeOptions::default(),
    );
    assert_eq!(
        d.used.map(|c| c.name()),
        Some("ISO-8859-13"),
        "{:?}",
        d.findings
    );
}

/// Raw 8-bit header octets in the charset of the message's text (Outlook
/// Express, The Bat!): they were read by detection alone, `žádost` in
/// ISO-8859-2 as windows-1252 `¾ádost`. The charset the body is read in
/// now reads them first when it reads them as plausible text; audit and
/// normalize agree (`detected`, the `missing-label` note). Not taken: a
/// label over ASCII text (many mailers' default `iso-8859-1`) and a
/// reading that is another script's octets (`ÄãºÃÅóÓÑ`).
#[test]
fn regression_raw_header_octets_are_read_in_the_charset_of_the_text() {
    let subject = "Poslání zprávy, žádost o schůzku";
    let body = "Dobrý den, posílám vám žádost.\n";
    let raw = |subj: &[u8], label: &str, body: &[u8]| {
        [
            b"From: a@example.com\nSubject: ".as_slice(),
            subj,
            format!("\nMIME-Version: 1.0\nContent-Type: text/plain; charset={label}\n\n")
                .as_bytes(),
            body,
        ]
        .concat()
    };
    let subject_of = |out: &[u8]| {
        let m = mailcharset::message::Message::parse(out);
        let f = m.parts()[0].header.get("subject").expect("Subject");
        mailcharset::mime::decode_unstructured(f.value).text
    };
    let l2 = encoding_rs::ISO_8859_2;
    let msg = raw(&encode(subject, l2), "iso-8859-2", &encode(body, l2));
    assert_eq!(subject_of(&filtered(&msg)), subject);
    let (_, a) = run(&["audit", "--format", "jsonl", "-"], &msg);
    let a = String::from_utf8(a).expect("utf-8");
    let rec = a
        .lines()
        .find(|l| l.contains("header:Subject"))
        .expect("record");
    assert!(
        rec.contains("\"detected\":{\"charset\":\"ISO-8859-2\""),
        "{rec}"
    );
    assert!(rec.contains("the charset of the message's text"), "{rec}");
    // Chinese octets under a French letter's label: GBK, by detection.
    let zh = "你好朋友，会议在明天";
    let fr = encode("Voilà déjà l'été.\n", encoding_rs::WINDOWS_1252);
    let msg = raw(&encode(zh, encoding_rs::GBK), "iso-8859-1", &fr);
    assert_eq!(subject_of(&filtered(&msg)), zh);
    // KOI8-R under an ASCII body labelled iso-8859-1: the label read no
    // octet, so the message's text has no charset to tell; detection.
    let ru = "Привет, как дела";
    let msg = raw(&encode(ru, encoding_rs::KOI8_R), "iso-8859-1", b"Hello.\n");
    let parsed = mailcharset::message::Message::parse(&msg);
    assert_eq!(parsed.text_charset(&DecodeOptions::default()), None);
    let with_text = raw(&encode(ru, encoding_rs::KOI8_R), "iso-8859-1", &fr);
    let parsed = mailcharset::message::Message::parse(&with_text);
    assert_eq!(
        parsed
            .text_charset(&DecodeOptions::default())
            .map(|c| c.name()),
        Some("ISO-8859-1")
    );
    assert_eq!(subject_of(&filtered(&msg)), ru);
    // Raw UTF-8 stays UTF-8 whatever the body's label.
    let msg = raw(subject.as_bytes(), "iso-8859-2", &encode(body, l2));
    assert_eq!(subject_of(&filtered(&msg)), subject);
    // A Latin-1 subject in a KOI8-R letter: KOI8-R reads it as Cyrillic
    // capitals wedged into Latin words (`naОve cafИ`), no text; detection
    // reads it (`tools/hunt_structure.py` seed 2001, a file name).
    let latin = "naïve café, déjà vu";
    let ru_body = encode("Привет, как дела?\n", encoding_rs::KOI8_R);
    let msg = raw(
        &encode(latin, encoding_rs::WINDOWS_1252),
        "koi8-r",
        &ru_body,
    );
    assert_eq!(subject_of(&filtered(&msg)), latin);
}

/// A forwarded message (message/rfc822) was written by another mailer:
/// its charset says nothing of the raw octets in the header of the
/// message that carries it. A French Subject in ISO-8859-1, forwarding a
/// Czech letter in windows-1250, was read as windows-1250 (`Réunion ŕ
/// Genčve`, `tools/hunt_structure.py` seed 2006, `naïve` as `naďve`).
/// Each header is read with the charset of its own message's text; the
/// attached message's raw header with the attached message's.
#[test]
fn regression_raw_header_octets_take_the_charset_of_their_own_message() {
    let subject = "Réunion à Genève, après-midi";
    let cz = "Dobrý den, děkuji za rychlou odpověď. Příliš žluťoučký kůň.\n";
    let l1 = encoding_rs::WINDOWS_1252;
    let w1250 = encoding_rs::WINDOWS_1250;
    let forward = |outer_text: &[u8], outer_label: &str| {
        [
            b"From: a@example.org\nSubject: ".as_slice(),
            &encode(subject, l1),
            b"\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n\n--b\n",
            format!("Content-Type: text/plain; charset={outer_label}\n\n").as_bytes(),
            outer_text,
            b"\n--b\nContent-Type: message/rfc822\n\nFrom: c@example.cz\nSubject: ",
            &encode("Příliš žluťoučký kůň", w1250),
            b"\nMIME-Version: 1.0\nContent-Type: text/plain; charset=windows-1250\n\n",
            &encode(cz, w1250),
            b"--b--\n",
        ]
        .concat()
    };
    let subjects = |out: &[u8]| {
        let m = mailcharset::message::Message::parse(out);
        m.parts()
            .iter()
            .filter_map(|p| p.header.get("subject"))
            .map(|f| mailcharset::mime::decode_unstructured(f.value).text)
            .collect::<Vec<_>>()
    };
    let want = [subject, "Příliš žluťoučký kůň"];
    // The carrier's own text is ASCII: no hint for its header, detection.
    let msg = forward(b"See the attached message.", "us-ascii");
    assert_eq!(subjects(&filtered(&msg)), want);
    let parsed = mailcharset::message::Message::parse(&msg);
    assert_eq!(parsed.text_charset(&DecodeOptions::default()), None);
    // Its own text in ISO-8859-1: that charset, whatever the attached one.
    let msg = forward(&encode("Voilà, ci-joint.", l1), "iso-8859-1");
    assert_eq!(subjects(&filtered(&msg)), want);
}

/// Text under an ISO 8859 label with octets 0x80..0x9F, C1 controls in the
/// label's charset: Word's quotes and dashes of the writer's Windows
/// charset (a Polish writer in Pine quoting `“IsC”`, in the linux-mips
/// archive). They are read as that charset's characters, the rest as the
/// label says, and reported; no C1 control reaches the text. encoding_rs
/// writes each piece in its own charset.
#[test]
fn c1_octets_under_iso_8859_labels_are_the_windows_charsets_punctuation() {
    // (label, its Windows charset, text in the label's charset, punctuation
    // only the Windows charset has)
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            "iso-8859-15",
            "windows-1252",
            "Prix : 5 €, l'œuvre",
            "’ — “ça” …",
        ),
        ("iso-8859-2", "windows-1250", "Říkal, že šel", "„ahoj“ – ‰"),
        ("iso-8859-7", "windows-1253", "Καλημέρα σας", "— ‘ναι’ …"),
        ("iso-8859-5", "windows-1251", "Привет, как дела", "— “ok” …"),
        ("iso-8859-8", "windows-1255", "שלום לכם", "— “כן” …"),
        (
            "iso-8859-13",
            "windows-1257",
            "Ačiū, labai gerai",
            "„taip“ – …",
        ),
        (
            "iso-8859-16",
            "windows-1252",
            "Mulțumesc frumos",
            "„da” – …",
        ),
    ];
    for &(label, windows, text, marks) in cases {
        let enc = |s: &str, name: &str| {
            let e = Encoding::for_label(name.as_bytes()).expect("label");
            let (b, _, bad) = e.encode(s);
            assert!(!bad, "{s} in {name}");
            b.into_owned()
        };
        let mut bytes = enc(text, label);
        bytes.push(b' ');
        let punct = enc(marks, windows);
        assert!(
            punct.iter().any(|b| (0x80..0xA0).contains(b)),
            "{marks} uses 0x80..0x9F in {windows}"
        );
        bytes.extend_from_slice(&punct);
        bytes.push(b'\n');
        let opts = DecodeOptions {
            body: true,
            ..DecodeOptions::default()
        };
        let d = charset::decode(&bytes, Some(label.as_bytes()), &opts);
        assert_eq!(d.text, format!("{text} {marks}\n"), "under {label}");
        let f = d
            .findings
            .iter()
            .find(|f| f.kind == FindingKind::C1InLatin1)
            .unwrap_or_else(|| panic!("c1-in-latin1 under {label}: {:?}", d.findings));
        assert_eq!(
            f.count,
            punct.iter().filter(|b| (0x80..0xA0).contains(*b)).count()
        );
        assert_eq!(
            f.offset,
            bytes
                .iter()
                .position(|b| (0x80..0xA0).contains(b))
                .expect("a C1 octet")
        );
    }
}

/// Russian under a utf-8 lie, in windows-1251 or in x-mac-cyrillic
/// (whose capitals windows-1251 reads as symbols: `Встреча` was
/// `‚стреча`): each read in its own charset, from a word to sentences.
#[test]
fn russian_under_a_utf8_lie_is_read_in_its_own_cyrillic_charset() {
    let texts = [
        "Встреча",
        "Привет, Мария!",
        "Встреча перенесена на пятницу. С уважением, Анна Смирнова",
    ];
    let opts = DecodeOptions {
        body: true,
        ..DecodeOptions::default()
    };
    for text in texts {
        for cs in [encoding_rs::WINDOWS_1251, encoding_rs::X_MAC_CYRILLIC] {
            let (bytes, _, bad) = cs.encode(text);
            assert!(!bad);
            let d = charset::decode(&bytes, Some(b"utf-8"), &opts);
            assert_eq!(d.text, text, "{} under utf-8", cs.name());
            assert_eq!(
                d.detected.map(|g| g.charset.name()),
                Some(cs.name()),
                "{text:?}"
            );
        }
    }
}

/// KOI8-R under a windows-1251 label reads as capitals but for each
/// sentence's first word, turned over (`рТПЫХ РТЙУМБФШ`): two sentences
/// are enough. Capitals written as such, with a unit or two whose case is
/// turned by nature (`кВт`, `мА`), keep their label.
#[test]
fn koi8r_under_windows_1251_is_read_from_two_sentences() {
    let opts = DecodeOptions {
        body: true,
        ..DecodeOptions::default()
    };
    let text = "Прошу прислать исправленную версию до пятницы.\nВстреча будет в четверг в два часа дня в нашем офисе.\n";
    let (bytes, _, _) = encoding_rs::KOI8_R.encode(text);
    let d = charset::decode(&bytes, Some(b"windows-1251"), &opts);
    assert_eq!(d.text, text);
    let caps = "ВНИМАНИЕ! МОЩНОСТЬ 5 кВт, ТОК 20 мА. НЕ ВКЛЮЧАТЬ БЕЗ ЗАЗЕМЛЕНИЯ.\nПРОВЕРИТЬ ПЕРЕД ЗАПУСКОМ, 3 кВт НА ФАЗУ.\n";
    let (bytes, _, _) = encoding_rs::WINDOWS_1251.encode(caps);
    let d = charset::decode(&bytes, Some(b"windows-1251"), &opts);
    assert_eq!(d.text, caps);
    assert_eq!(d.detected, None);
}

/// A C1 octet between two letters is damage when no word holds its
/// Windows mark there: between Greek letters any mark but an apostrophe,
/// between Latin ones any but an apostrophe or a dash; so is one the
/// Windows charset has no character for. Damage is replaced (and noted);
/// the writer's punctuation is read.
#[test]
fn c1_octets_between_letters_are_damage_unless_words_hold_the_mark() {
    let opts = DecodeOptions {
        body: true,
        ..DecodeOptions::default()
    };
    let cases: &[(&str, &[u8], &str)] = &[
        (
            "iso-8859-7",
            b"\xc5\xf5\xf7\xe1\xf1\xe9\x96\xf3\xf4\xfe \x85\xc1\xe8\xde\xed\xe1.\n",
            "Ευχαρι\u{FFFD}στώ …Αθήνα.\n",
        ),
        // 0x81: no character in windows-1253 either.
        ("iso-8859-7", b"\xc1\x81 \xc2\n", "Α\u{FFFD} Β\n"),
        (
            "iso-8859-15",
            b"Jean\x96Pierre don\x92t caf\x95e \xa4\n",
            "Jean–Pierre don’t caf\u{FFFD}e €\n",
        ),
    ];
    for &(label, bytes, want) in cases {
        let d = charset::decode(bytes, Some(label.as_bytes()), &opts);
        assert_eq!(d.text, want, "under {label}");
        let f = d
            .findings
            .iter()
            .find(|f| f.kind == FindingKind::C1InLatin1)
            .expect("c1-in-latin1");
        assert!(
            f.note
                .as_deref()
                .is_some_and(|n| n.contains("; 1 of them damage (between two letters")),
            "{f:?}"
        );
    }
}

/// Persian under its own `windows-1256` with two damaged octets (Faker's
/// `fa_IR` job `دندان‌پزشک`, its ZWNJ replaced by `ê`, its `ش` dropped, by
/// the Faker hunt's seed 6, 2026-11-28): the Latin letter between Arabic
/// ones made the twin rule read it as ISO-8859-6, `دلدالي\u{81}ز\u{98}`,
/// two C1 controls for windows-1256's `پ ک`. A C1 control is no
/// character of Arabic text: the label's reading stays, as a body and as
/// an encoded-word Subject.
#[test]
fn regression_damaged_persian_under_windows_1256_is_not_read_with_c1_controls() {
    let octets = b"\xcf\xe4\xcf\xc7\xe4\xea\x81\xd2\x98";
    read_as_written_under("دندانêپزک", octets, &["windows-1256"]);
}

/// Short Arabic text: ISO-8859-6 and windows-1256 read the same octets
/// as two sets of Arabic letters, and chardetng tells them apart in long
/// texts only (`اجتماع` in ISO-8859-6 was read as windows-1256
/// `اجتهاظ`; windows-1256 `إجبو` as ISO-8859-6 `إجبن`). Each phrase
/// (written for this test) in both charsets, as a Subject under a lying
/// `utf-8` label and as a body without a label: read as written, never
/// as the other charset's reading. encoding_rs writes the octets.
#[test]
fn regression_short_arabic_is_weighed_between_iso_8859_6_and_windows_1256() {
    let phrases = [
        "اجتماع",
        "اجتماع الغد",
        "تقرير الشهر",
        "شكرا جزيلا",
        "موعد التسليم",
        "فاتورة رقم",
        "إظهار الصور",
        "مرحبا بكم",
        "طلب عرض سعر",
        "الرسالة الجديدة",
        "نتائج الاختبار",
        "مدة ظهور",
        "مع تحياتي",
        "عاجل",
        "هل وصلت الرسالة؟",
    ];
    let header = DecodeOptions {
        tld: charset::Tld::from_domain(b"example.eg"),
        ..DecodeOptions::default()
    };
    let body = DecodeOptions {
        body: true,
        ..header
    };
    let mut read = 0;
    for (enc, twin) in [
        (encoding_rs::ISO_8859_6, encoding_rs::WINDOWS_1256),
        (encoding_rs::WINDOWS_1256, encoding_rs::ISO_8859_6),
    ] {
        for text in phrases {
            let (bytes, _, bad) = enc.encode(text);
            if bad {
                continue;
            }
            let (other, _) = twin.decode_without_bom_handling(&bytes);
            for (label, opts) in [(Some(&b"utf-8"[..]), &header), (None, &body)] {
                let d = charset::decode(&bytes, label, opts);
                let what = format!("{text} in {} under {label:?}", enc.name());
                assert_ne!(*d.text, *other, "{what}: read as {}", twin.name());
                // One phrase, windows-1256 `طلب عرض سعر`, has nothing that
                // tells it from other text: chardetng reads it as
                // windows-1252 without a label, and under the lie the
                // label's reading stays (replaced).
                if d.text == text {
                    read += 1;
                } else {
                    assert_eq!(text, "طلب عرض سعر", "{what}: {:?}", d.text);
                }
            }
        }
    }
    assert_eq!(read, 58, "phrases read as written");
    // Latin letters in Latin words are no Arabic: Afrikaans `lêer` under a
    // `utf-8` lie from an `.eg` sender, which chardetng reads as
    // windows-1256 (its `ê` is windows-1256's too), is not ISO-8859-6 `lيer`.
    let af = "Die lêer is gestoor. Kon nie die lêer lees nie; gebruik die tweede lêer \
              of die derde lêer in die gids, of 'n ander lêer.";
    let bytes = encode(af, encoding_rs::ISO_8859_15);
    let d = charset::decode(&bytes, Some(b"utf-8"), &body);
    assert!(
        !d.text
            .chars()
            .any(|c| ('\u{0600}'..='\u{06FF}').contains(&c)),
        "{:?}",
        d.text
    );
}

/// A correctly labelled Lithuanian ISO-8859-4 text with three damaged
/// octets (`ačiū už greičiau` as `ačiĐ uŅ grei\u{9c}ius`) has three
/// words no language has; macintosh reads those as letters (`aËi u—
/// greiúius`), but it also turns the label's good words into nobody's
/// (`ketvirtadienÁ`, `atsakym±`: a sign no word ends with). The label's
/// reading stays, the C1 control is replaced.
#[test]
fn regression_a_damaged_baltic_text_keeps_its_label() {
    let bytes = b"Susitikimas vyks ketvirtadien\xe7 Vilniuje.\nLabas, a\xe8i\xd0 u\xd1 grei\x9cius atsakym\xb1.\n";
    let d = charset::decode(bytes, Some(b"iso-8859-4"), &body_opts());
    assert_ne!(d.verdict, Verdict::Mislabeled, "{:?}", d.findings);
    assert_eq!(
        &*d.text,
        "Susitikimas vyks ketvirtadienį Vilniuje.\nLabas, ačiĐ uŅ grei\u{FFFD}ius atsakymą.\n"
    );
}

/// Japanese writes a line without a space: EUC-JP under a Latin label
/// reads as one run of non-ASCII characters a line (`ŔčĆü...`), two runs
/// for two lines, where the rule asked for three. One run of 16
/// characters or more stands for three; a list of accented letters under
/// its own label (one run of 21) still keeps it.
#[test]
fn regression_japanese_lines_under_a_latin_label_are_read_as_written() {
    let ja = "会議の資料を添付しましたのでご確認ください。\n来週の打ち合わせは火曜日の午後三時からです。\n";
    let bytes = encode(ja, encoding_rs::EUC_JP);
    for label in ["iso-8859-2", "iso-8859-1", "windows-1252"] {
        let d = charset::decode(&bytes, Some(label.as_bytes()), &body_opts());
        assert_eq!(d.verdict, Verdict::Mislabeled, "{label}: {:?}", d.findings);
        assert_eq!(&*d.text, ja, "{label}");
    }
    let list = "Umlaute: ÄÖÜäöüÉÈÊËÀÂÄÖÜäöüßÿ und Akzente\n";
    let bytes = encode(list, encoding_rs::WINDOWS_1252);
    let d = charset::decode(&bytes, Some(b"iso-8859-1"), &body_opts());
    assert_ne!(d.verdict, Verdict::Mislabeled, "{:?}", d.findings);
    assert_eq!(&*d.text, list);
}

/// Spanish Mac OS Roman under ISO-8859-2: Mac has `á í ó ñ é` at 0x80 to
/// 0x9F, C1 controls in ISO-8859-2, so the label's few letters (`Á` for
/// `¡`, `Ŕ` for `¿`) fit an alphabet and its doubtful words were not
/// looked at; the C1 controls were read as windows-1250 (`port‡tiles`,
/// four replaced). Where an ISO 8859 label reads C1 controls inside
/// words, those words are doubted, and a reading that fits as well and
/// mends them is taken. Croatian windows-1250 under the same label is
/// windows-1250 as before.
#[test]
fn regression_mac_text_under_iso_8859_2_is_read_as_macintosh() {
    let es = "¿Podrías enviarme el informe mañana? Gracias por la información sobre la reunión del miércoles.\nSaludos desde Málaga, José\n";
    let bytes = encode(es, encoding_rs::MACINTOSH);
    let d = charset::decode(&bytes, Some(b"iso-8859-2"), &body_opts());
    assert_eq!(d.verdict, Verdict::Mislabeled, "{:?}", d.findings);
    assert_eq!(&*d.text, es);
    let hr = "Poštovani, šaljem vam izvještaj o prodaji za prošli mjesec. Želim vam ugodan dan, Željko Čačić\n";
    let bytes = encode(hr, encoding_rs::WINDOWS_1250);
    let d = charset::decode(&bytes, Some(b"iso-8859-2"), &body_opts());
    assert_eq!(&*d.text, hr);
}

/// windows-1251 under ISO-8859-5 keeps its case (`Рээр` for `Анна`), so
/// the turned-case rule misses it; its reading mixes letters of Russian
/// (`ё ы э`), Serbian (`ђ`) and Macedonian (`ѓ ќ`) in one word
/// (`ёьхђѓ`, `юсёѓфшђќ`). Three such words or more, and a candidate that
/// reads every word as one language's: the candidate. Correct texts of
/// six languages under their labels, one quoting a Serbian name in a
/// Russian sentence, keep them.
#[test]
fn regression_cyrillic_letters_of_no_one_language_doubt_the_label() {
    let ru = "С уважением, Анна Смирнова\nЕщё нужно обсудить смету на следующий год.\n";
    for label in ["iso-8859-5", "ibm866"] {
        let bytes = encode(ru, encoding_rs::WINDOWS_1251);
        let d = charset::decode(&bytes, Some(label.as_bytes()), &body_opts());
        if label == "iso-8859-5" {
            assert_eq!(d.verdict, Verdict::Mislabeled, "{label}: {:?}", d.findings);
            assert_eq!(&*d.text, ru, "{label}");
        } else {
            // IBM866 reads it with its case turned over: caught before.
            assert_eq!(&*d.text, ru, "{label}");
        }
    }
    let correct: &[(&str, &'static Encoding, &str)] = &[
        (
            "Встреча с Ђорђе Ђорђевићем перенесена на пятницу. Ещё раз спасибо!\n",
            encoding_rs::ISO_8859_5,
            "iso-8859-5",
        ),
        (
            "Поштовани, шаљем вам извештај о продаји. Хвала унапред, Ђорђе\n",
            encoding_rs::ISO_8859_5,
            "iso-8859-5",
        ),
        (
            "Почитувани, ви испраќам извештај за продажбата. Ѓорѓи ќе дојде утре.\n",
            encoding_rs::WINDOWS_1251,
            "windows-1251",
        ),
        (
            "Шановний пане, надсилаю звіт про продажі. Її відповідь ґрунтовна, є питання.\n",
            encoding_rs::KOI8_U,
            "koi8-u",
        ),
        (
            "Паважаны спадар, дасылаю справаздачу. Дзякуй за ўвагу, усё добра.\n",
            encoding_rs::WINDOWS_1251,
            "windows-1251",
        ),
        (
            "Уважаеми господине, изпращам ви отчета. Щом получите, пишете ми.\n",
            encoding_rs::WINDOWS_1251,
            "windows-1251",
        ),
    ];
    for &(text, enc, label) in correct {
        let bytes = encode(text, enc);
        let d = charset::decode(&bytes, Some(label.as_bytes()), &body_opts());
        assert_ne!(d.verdict, Verdict::Mislabeled, "{label}: {:?}", d.findings);
        assert_eq!(&*d.text, text, "{label}");
    }
}

/// A short unlabelled UTF-8 text with a stray or lost octet was read as
/// windows-1252 whole when it had fewer than four UTF-8 letters in words
/// per error: every intact character became mojibake (`reconstruyÃ³`,
/// `grÅµp`, `â€œlogout_enableâ€`). UTF-8 is kept when its characters (in
/// words, standing alone like Italian `è`, or typography) are one for
/// every two errors or more; only the damage is replaced. The oracle is
/// std's lossy reading. A short text of another charset whose octets pair
/// up into one UTF-8 letter by chance stays that charset's.
#[test]
fn regression_a_short_unlabelled_utf8_text_with_a_stray_octet_stays_utf8() {
    let cases: Vec<Vec<u8>> = vec![
        [
            "Debido a los errores, el objetivo no se reconstruyó. Falta la opción".as_bytes(),
            b"\x80.",
        ]
        .concat(),
        b"Ffeil allwedd yn y gr\xc5\xb5p '%s'\nDim digon o gof er mwyn gwneud ffr\xc3m\n".into(),
        [
            "“%s” propietatea ez da idazgarria. Ezin da “%s” atzerapena ".as_bytes(),
            b"\x93",
            "%s” bihurtu".as_bytes(),
        ]
        .concat(),
        b"Il pacchetto non \xc3\xa8 installato e quindi non \xc3\xa8 stato rimosso; gi\xe0 esiste\n"
            .into(),
        b"Umbenennen von tempor\xc3\xa4rer Schl\xc3\xbcsseldatei fehlgeschlagen\xa0: %s\n".into(),
    ];
    for bytes in &cases {
        for (label, tld) in [(None, "com"), (Some(&b"us-ascii"[..]), "es")] {
            let opts = DecodeOptions {
                tld: charset::Tld::from_domain(format!("example.{tld}").as_bytes()),
                ..body_opts()
            };
            let d = charset::decode(bytes, label, &opts);
            let want = String::from_utf8_lossy(bytes);
            assert_eq!(d.text, want, "{label:?} .{tld} {:?}", d.findings);
            assert_eq!(d.verdict, Verdict::Invalid, "{want}");
        }
    }
    let msg = message("text/plain", &cases[0]);
    assert_eq!(
        body_text(&filtered(&msg)),
        String::from_utf8_lossy(&cases[0])
    );
    // Lines of UTF-8 among lines with none (a patch changing a name from
    // UTF-8 to Latin-1) are two charsets, each read in its own.
    let patch = [
        "-    With some changes from Kyösti Mälkki and\n".as_bytes(),
        b"+    With some changes from Ky\xf6sti M\xe4lkki and\n",
        "-    Kyösti Mälkki again\n".as_bytes(),
        b"+    Ky\xf6sti M\xe4lkki again\n",
    ]
    .concat();
    let d = charset::decode(&patch, None, &body_opts());
    assert!(!d.text.contains(['\u{FFFD}', 'Ã']), "{}", d.text);
    assert_eq!(d.text.matches("Kyösti Mälkki").count(), 4, "{}", d.text);
    assert!(
        d.findings
            .iter()
            .any(|f| f.kind == FindingKind::MixedCharset),
        "{:?}",
        d.findings
    );
    // Not UTF-8: a Big5 Subject-sized text (`會議`: B7 7C C4 B3, whose
    // C4 B3 is `ĳ` in UTF-8); Russian `её` in KOI8-R (C5 A3, `ţ`) among
    // other words; French in Mac Roman, whose `’é` pairs up as Armenian.
    let others: [(&str, &'static Encoding, &str); 3] = [
        ("會議", encoding_rs::BIG5, "tw"),
        ("Я люблю её", encoding_rs::KOI8_R, "ru"),
        ("L’été à l’école", encoding_rs::MACINTOSH, "fr"),
    ];
    for (text, enc, tld) in others {
        let bytes = encode(text, enc);
        let opts = DecodeOptions {
            tld: charset::Tld::from_domain(format!("example.{tld}").as_bytes()),
            ..body_opts()
        };
        let d = charset::decode(&bytes, None, &opts);
        assert_ne!(
            d.used.map(|c| c.name()),
            Some("UTF-8"),
            "{text}: {}",
            d.text
        );
        if enc == encoding_rs::BIG5 {
            assert_eq!(d.text, text);
        }
    }
}

/// The sender's domain as `DecodeOptions::tld` takes it.
fn tld_of(domain: &str) -> Option<charset::Tld> {
    charset::Tld::from_domain(format!("example.{domain}").as_bytes())
}

/// A correctly labelled text with a damaged octet or a few keeps its
/// label's reading: U+FFFD at the damage, every intact character as
/// written. Each case was read whole as another charset before (an
/// independent hunt with real texts, 2026-11-27): a standing `è` or a
/// one-syllable Korean word was no evidence for the label, a letter next
/// to the damage neither, and a candidate could put Han or Hangul inside
/// Latin words (`f眉r`, `legisla눉찾o`) or C1 controls into a line. The
/// oracle is the label's own lossy reading: std's for UTF-8, encoding_rs's
/// decoder for EUC-KR.
#[test]
fn regression_thin_damage_keeps_the_label_reading() {
    let cases: [(&str, &str, &[u8]); 9] = [
        // A stray no-break space; the only accents are `è` standing alone
        // (read as windows-1251 `ГЁ`).
        (
            "utf-8",
            "it",
            b"Ciao Marco,\n\nla riunione \xc3\xa8 domani alle 10 ed \xc3\xa8 confermata.\n\
              Il documento \xc3\xa8 pronto.\xa0\nA presto,\nLuca\n",
        ),
        // One character damaged (windows-1252 `Ã©`).
        (
            "utf-8",
            "br",
            b"Errar \xc3\xa9 humano, mas a culpa \xf9\xca do computador.\n",
        ),
        // Two characters cut, `ť` next to the damage.
        (
            "utf-8",
            "cz",
            b"svou pam\xc4\xc5\xa5, nikdo na sv\xc5j rozum.\n",
        ),
        // Five stray octets around the one `ü` (GBK `f眉r`).
        (
            "utf-8",
            "cn",
            b"Wir tr\xf9e\xdaffen uns am Fr\xd5ei\x87tag f\xc3\xbcr das Fel\xf5dprojekt.\n",
        ),
        // A damaged line read as EUC-KR (`legisla눉찾o`).
        (
            "utf-8",
            "kr",
            b"\tA infla\xc3\xa7\xc3\xa3o sobe sem parar,\n\tsem legisla\x87\xa7\xc3\xa3o.\n",
        ),
        // Stray no-break spaces read as GBK (`stuaim爊谩爊eart`).
        (
            "utf-8",
            "cn",
            b"Dia duit,\n\nIs fearr stuaim\xa0n\xc3\xa1\xa0neart.\n",
        ),
        // A damaged line read as ISO-8859-2 with a C1 control.
        (
            "utf-8",
            "pl",
            b"stanowisko o \xd8\xdaaskawe z\xc5\x82o\xc3\xd9enie\n",
        ),
        // A cut character in a two-word Korean text (KOI8-U `Ёя ффн`).
        ("euc-kr", "kr", b"\xb3\xd1 \xc6\xc6\xce...!\n"),
        // A letter between spaces beside the damage (GBK `茅爍ue`).
        ("utf-8", "cn", b"au uso \xc3\xa9\xa0ue \xc3\xa9 ruim\n"),
    ];
    for (label, domain, bytes) in cases {
        let opts = DecodeOptions {
            tld: tld_of(domain),
            ..body_opts()
        };
        let d = charset::decode(bytes, Some(label.as_bytes()), &opts);
        let want = if label == "utf-8" {
            String::from_utf8_lossy(bytes).into_owned()
        } else {
            let enc = Encoding::for_label(label.as_bytes()).expect("label");
            enc.decode_without_bom_handling(bytes).0.into_owned()
        };
        assert_eq!(&*d.text, want, "{label} from .{domain}: {:?}", d.findings);
        assert_eq!(d.verdict, Verdict::Invalid, "{label} from .{domain}");
        assert!(
            !d.findings.iter().any(|f| f.kind == FindingKind::Mislabeled),
            "{label} from .{domain}: {:?}",
            d.findings
        );
    }
}

/// An English list with a few symbols of a CJK charset's symbol rows (or
/// UTF-8's) before its items and one damaged octet keeps its label: the
/// symbols standing between a line's start and a space were no evidence,
/// and the text was read whole as IBM866 or windows-1251 (every `■` two
/// Cyrillic letters, verdict `mislabeled`): 5 to 20% of such texts with 2
/// to 4 bullets under EUC-JP, Shift_JIS, EUC-KR, GBK and UTF-8 (an
/// independent hunt, 2026-11-27). The oracle is the label's own lossy
/// reading (encoding_rs, std).
#[test]
fn regression_bullets_with_damage_keep_the_label() {
    let items = [
        "Agenda for Thursday:",
        "{b} Review the release notes",
        "{b} Decide on the migration date",
        "{b} Assign owners for the open bugs",
    ];
    for (label, bullet) in [
        ("euc-jp", "■"),
        ("euc-jp", "※"),
        ("shift_jis", "●"),
        ("shift_jis", "→"),
        ("euc-kr", "★"),
        ("gbk", "◆"),
        ("gb2312", "□"),
        ("utf-8", "✓"),
        ("utf-8", "►"),
    ] {
        let text = items.join("\n").replace("{b}", bullet) + "\n";
        let enc = Encoding::for_label(label.as_bytes()).expect("label");
        let (clean, _, unmappable) = enc.encode(&text);
        assert!(!unmappable, "{label} {bullet}");
        // One octet damaged: `notes` with its `e` given the high bit.
        let mut bytes = clean.into_owned();
        let at = bytes.windows(5).position(|w| w == b"notes").expect("notes") + 3;
        bytes[at] |= 0x80;
        let d = charset::decode(&bytes, Some(label.as_bytes()), &body_opts());
        let want = enc.decode_without_bom_handling(&bytes).0.into_owned();
        assert_eq!(&*d.text, want, "{label} {bullet}: {:?}", d.findings);
        assert!(
            !d.findings.iter().any(|f| f.kind == FindingKind::Mislabeled),
            "{label} {bullet}: {:?}",
            d.findings
        );
    }
}

/// UTF-16 under a label of the other byte order is read in its own:
/// big-endian text without a byte order mark under `utf-16le` came out as
/// CJK with U+FFFD, and `FF FE` under `utf-16be` was kept as
/// noncharacters though the mark settles it. An ASCII-compatible text
/// with NUL padding after it under `utf-16` is read as UTF-8, as it is
/// without the padding (it was read as CJK). Text in the label's own order
/// stays, CJK without ASCII too (an independent hunt, 2026-11-27).
#[test]
fn regression_utf16_byte_order_and_padding() {
    let text = "Grüße aus Köln — wir sehen uns am Montag.\nSecond line here.\n";
    let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
    let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let bom_le: Vec<u8> = [0xFF, 0xFE].into_iter().chain(le.iter().copied()).collect();
    for (label, bytes) in [("utf-16le", &be), ("utf-16be", &bom_le)] {
        let d = charset::decode(bytes, Some(label.as_bytes()), &body_opts());
        assert_eq!(&*d.text, text, "{label}");
        assert_eq!(d.verdict, Verdict::Mislabeled, "{label}");
    }
    for (label, bytes) in [("utf-16le", &le), ("utf-16be", &be)] {
        let d = charset::decode(bytes, Some(label.as_bytes()), &body_opts());
        assert_eq!(&*d.text, text, "{label}");
        assert_eq!(d.verdict, Verdict::Ok, "{label}");
    }
    let cjk = "日本語のテキストです。中文的文字。";
    let cjk_le: Vec<u8> = cjk.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let d = charset::decode(&cjk_le, Some(b"utf-16le"), &body_opts());
    assert_eq!(&*d.text, cjk);
    let padded =
        b"Hello team,\nthe meeting moved to Thursday. Gr\xc3\xbc\xc3\x9fe, J\xc3\xbcrgen\n\0";
    let d = charset::decode(padded, Some(b"utf-16"), &body_opts());
    assert!(d.text.starts_with("Hello team,\nthe meeting"), "{}", d.text);
    assert_eq!(d.verdict, Verdict::Mislabeled);
}

/// A legacy letter with a UTF-8 signature keeps its letter in the label's
/// charset and reads the signature as UTF-8: a Russian signature below a
/// German windows-1252 letter made the whole read as GBK (`W黵de`,
/// `gem溥`); below a short Polish or Italian letter, the letter's own
/// accents became U+FFFD (`Pawe�`, `il documento �`). The oracle is the
/// text as written, encoded with encoding_rs and std.
#[test]
fn regression_a_legacy_letter_keeps_its_label_beside_a_utf8_signature() {
    let cases: [(&str, &'static Encoding, &str, &str); 4] = [
        (
            "windows-1252",
            encoding_rs::WINDOWS_1252,
            "Das Heilige ist ihrer W\u{fc}rde ganz gem\u{e4}\u{df}, und hier hat sie\n\
             die gr\u{f6}\u{df}te Wirkung aufs Leben.\n\n",
            "-- \nАнна Смирнова, ООО «Ромашка»\n",
        ),
        (
            "iso-8859-2",
            encoding_rs::ISO_8859_2,
            "Pawe\u{142}, spotkanie jutro o 10.\nPozdrawiam\n\n",
            "-- \nАнна Смирнова, ООО «Ромашка»\n",
        ),
        (
            "iso-8859-2",
            encoding_rs::ISO_8859_2,
            "Linuksowcu m\u{142}ody! Wywal swojego admina do wody!\n\n",
            "-- \nΓιώργος Παπαδόπουλος\n",
        ),
        (
            "iso-8859-1",
            encoding_rs::WINDOWS_1252,
            "Ciao, il documento \u{e8} pronto.\n\n",
            "-- \nJosé Pérez, Société Générale, Département Crédit\n",
        ),
    ];
    for (label, enc, letter, signature) in cases {
        let bytes = [encode(letter, enc), signature.as_bytes().to_vec()].concat();
        for domain in ["com", "cn", "de"] {
            let opts = DecodeOptions {
                tld: tld_of(domain),
                ..body_opts()
            };
            let d = charset::decode(&bytes, Some(label.as_bytes()), &opts);
            assert_eq!(
                &*d.text,
                format!("{letter}{signature}"),
                "{label} from .{domain}: {:?}",
                d.findings
            );
        }
    }
}

/// Raw 8-bit octets in a Subject, in the charset of the message's text,
/// with one damaged octet: read in that charset, U+FFFD at the damage (it
/// was read whole as windows-1252, every character mojibake). And an
/// unlabelled Chinese letter with one damaged octet is read as GBK
/// (chardetng rules a charset out at its first error, and the letter was
/// windows-1252 mojibake). The oracle: encoding_rs's GBK decoder.
#[test]
fn regression_damaged_cjk_keeps_its_charset_without_a_label() {
    let subject: &[u8] =
        b"\xbb\xa8\xbc\xe4\xcf\xe0\xbc\xba\xf3\xa3\xac\xd6\xbb\xc6\xbe\xcf\xcb\xca\xd6";
    let body = encode(
        "你好，\n\n附件是本周的会议记录，请查收。\n\n谢谢！\n",
        encoding_rs::GBK,
    );
    let msg = [
        &b"From: Li <li@example.cn>\nTo: b@example.org\nSubject: "[..],
        subject,
        b"\nMessage-ID: <s@example.cn>\nMIME-Version: 1.0\n\
          Content-Type: text/plain; charset=gb2312\nContent-Transfer-Encoding: 8bit\n\n",
        &body,
    ]
    .concat();
    let n = normalize::normalize(
        &msg,
        &Options {
            headers: mailcharset::normalize::HeaderMode::Utf8,
            ..Options::default()
        },
    )
    .expect("normalizes");
    let out = String::from_utf8_lossy(&n.bytes);
    let want = encoding_rs::GBK.decode_without_bom_handling(subject).0;
    assert!(want.contains('\u{FFFD}'), "the damage is there");
    assert!(out.contains(&format!("Subject: {want}\n")), "{out}");

    let letter = "各位同事：\n\n下周一上午九点在三楼会议室召开项目进度会议，请大家准时参加。\n\
                  会议将讨论第三季度的预算和新产品的发布计划，请提前准备好相关材料。\n\
                  如有问题，请与我联系。\n\n谢谢！\n王伟\n";
    let mut bytes = encode(letter, encoding_rs::GBK);
    // One octet lost in the third line.
    let at = bytes.len() / 2;
    bytes.remove(at);
    let opts = DecodeOptions {
        tld: tld_of("cn"),
        ..body_opts()
    };
    let d = charset::decode(&bytes, None, &opts);
    let want = encoding_rs::GBK.decode_without_bom_handling(&bytes).0;
    assert_eq!(d.text, want, "{:?}", d.findings);
    assert_eq!(d.verdict, Verdict::Invalid);
}

/// A short blob without a space (a key, a hash) under a text label that
/// no charset reads as text goes out byte for byte: read as windows-1252 it
/// was rewritten (`\x8f` a C1 control), replaced its octets were gone.
#[test]
fn regression_a_short_blob_under_a_text_label_is_kept() {
    let blob: &[u8] = b"\x8f\xe2A\xc7\x9a]\xf03\xb4~\xa1\xd9b\xee\x95(";
    for ct in [
        "text/plain; charset=utf-8",
        "text/plain; charset=us-ascii",
        "text/plain",
        // Read without error, as single-byte charsets read any octet.
        "text/plain; charset=iso-8859-1",
        "text/plain; charset=koi8-r",
    ] {
        assert_kept_as_binary(&message(ct, blob), ct);
    }
}

/// A Windows writer's text under the ISO label of its script: read with
/// the Windows charset, whose own text it is (an independent hunt,
/// 2026-11-27). windows-1255 Hebrew with gershayim (`מנכ״ל`) or niqqud
/// (`שָׁלוֹם`) under ISO-8859-8(-I), which has no character for them, lost
/// them to U+FFFD; windows-1250 Slovak under ISO-8859-2 had its `š ť ž`
/// at 0x80..0x9F read as windows-1250 but `ľ` (0xBE) left as ISO-8859-2
/// `ž` (`hžadajú` beside `ťažko`). The oracle is encoding_rs's encoder
/// and decoder of the Windows charset.
#[test]
fn regression_a_windows_writer_under_the_iso_label_is_read_as_windows() {
    let cases: [(&str, &'static Encoding, &str); 4] = [
        (
            "iso-8859-8-i",
            encoding_rs::WINDOWS_1255,
            "שלום, הפגישה עם מנכ״ל החברה בת״א נדחתה.\nבברכה, דנה\n",
        ),
        (
            "iso-8859-8",
            encoding_rs::WINDOWS_1255,
            "שָׁלוֹם לכם, תּוֹדָה על ההודעה. המחיר 20 ₪.\n",
        ),
        (
            "iso-8859-2",
            encoding_rs::WINDOWS_1250,
            "Dobrý deň,\nďakujem za ľúbostný list, ťažko sa mi hľadajú slová.\n",
        ),
        (
            "iso-8859-2",
            encoding_rs::WINDOWS_1250,
            "Proszę o szybką odpowiedź, świetnie że już jest źródło.\n",
        ),
    ];
    for (label, enc, text) in cases {
        let bytes = encode(text, enc);
        let d = charset::decode(&bytes, Some(label.as_bytes()), &body_opts());
        assert_eq!(&*d.text, text, "{label}: {:?}", d.findings);
        assert_eq!(d.replacements, 0, "{label}");
        assert!(
            d.findings.iter().any(|f| f.kind == FindingKind::C1InLatin1),
            "{label}: {:?}",
            d.findings
        );
        // Read whole as another charset than the label's: `detected` names
        // it (the audit's record said ISO-8859-2, detected null, while
        // normalize wrote from windows-1250).
        if d.used != d.resolution.charset {
            assert_eq!(d.detected.map(|x| x.charset), d.used, "{label}");
        }
    }
    // Text of the ISO charset itself keeps it: ISO-8859-2 Polish (its
    // `ą ś ź` at 0xB1 0xB6 0xBC, no octet 0x80..0x9F), Hebrew without
    // niqqud.
    for (label, enc, text) in [
        (
            "iso-8859-2",
            encoding_rs::ISO_8859_2,
            "Proszę o szybką odpowiedź, świetnie że już jest źródło.\n",
        ),
        (
            "iso-8859-8",
            encoding_rs::ISO_8859_8,
            "שלום, הפגישה נדחתה.\n",
        ),
    ] {
        let bytes = encode(text, enc);
        let d = charset::decode(&bytes, Some(label.as_bytes()), &body_opts());
        assert_eq!(&*d.text, text, "{label}");
        assert_eq!(d.verdict, Verdict::Ok, "{label}: {:?}", d.findings);
    }
    // ISO-8859-2 text with two damaged octets in 0x80..0x9F beside its
    // letters (the property test `latin_text_under_its_latin_label_never_flips`
    // found it, one run in eighty): windows-1250 reads them as letters, but
    // reads the text's own `Š ť` (0xA9 0xBB) inside words as `© »`. The
    // label's reading stands; only the damaged octets are in question.
    let text = "Šťastný Dvořák ü Ísland Noël Größe Šťastný\n";
    let mut bytes = encode(text, encoding_rs::ISO_8859_2);
    bytes.insert(0, 0x9C);
    bytes.insert(2, 0x8C);
    let d = charset::decode(&bytes, Some(b"iso-8859-2"), &body_opts());
    assert_eq!(
        d.used,
        charset::Charset::for_label(b"iso-8859-2"),
        "{:?}",
        d.findings
    );
    let own = encoding_rs::ISO_8859_2
        .decode_without_bom_handling(&bytes[4..])
        .0;
    assert!(d.text.ends_with(&*own), "{:?}", d.text);
    // Damaged octets that windows-1250 reads as capitals where no writer
    // puts one (`kŚň`, `ŚŠReykjavík`) are no windows-1250 writer's
    // letters, though windows-1250 reads every other octet as a letter
    // too (`Łódź` as `Łódľ`): the same property test, the same rate.
    for (text, damage) in [
        (
            "Reykjavík tal? kůň čtvrť Łódź\n",
            [(0usize, 0x8Cu8, false), (17, 0x8C, true)],
        ),
        (
            "Reykjavík őrült §4 §4 ég Łódź őrült\n",
            [(0, 0x8C, false), (1, 0x8A, false)],
        ),
    ] {
        let mut bytes = encode(text, encoding_rs::ISO_8859_2);
        for (at, b, replace) in damage {
            if replace {
                bytes[at] = b;
            } else {
                bytes.insert(at, b);
            }
        }
        let d = charset::decode(&bytes, Some(b"iso-8859-2"), &body_opts());
        assert_eq!(
            d.used,
            charset::Charset::for_label(b"iso-8859-2"),
            "{text}: {:?}",
            d.findings
        );
        assert!(d.text.contains("Łódź"), "{:?}", d.text);
    }
    // A windows-1250 writer's signs at a word's edge are no letter inside
    // a word: `«` and `»` (0xAB 0xBB, ISO-8859-2's `Ť ť`) around a quoted
    // word, `©` (0xA9, `Š`) before a name. The text is still the writer's.
    let text = "Ďakujem za list «Ahoj», ťažko sa mi hľadajú slová.\n©Šimon\n";
    let bytes = encode(text, encoding_rs::WINDOWS_1250);
    let d = charset::decode(&bytes, Some(b"iso-8859-2"), &body_opts());
    assert_eq!(&*d.text, text, "{:?}", d.findings);
}

/// ISO-2022-JP-2's escapes under the ISO-2022-JP label (JIS X 0212's `ESC
/// $ ( D` for `頰`): read with the -2 decoder, its superset; encoding_rs's
/// ISO-2022-JP took the escape's octets for JIS pairs (`�え呈�`). The
/// oracle is Python's iso2022_jp_2 codec, as written into the octets.
#[test]
fn regression_iso_2022_jp_2_escapes_under_iso_2022_jp_are_read() {
    let bytes: &[u8] =
        b"\x1b$B2q5D$N7o$G$4O\"Mm$7$^$9!#\x1b$(Dh$\x1b$B$h$m$7$/$*4j$$$7$^$9!#\x1b(B\n";
    let d = charset::decode(bytes, Some(b"iso-2022-jp"), &body_opts());
    assert_eq!(
        &*d.text, "会議の件でご連絡します。頰よろしくお願いします。\n",
        "{:?}",
        d.findings
    );
    assert_eq!(d.replacements, 0);
}

/// An encoded-word under a label no charset answers to, whose octets read
/// by detection hold NUL and control characters (UTF-16LE under
/// `ucs-2le`): kept as written, and its field with it (NULs and controls
/// were written into the Subject). A known label's reading stands.
#[test]
fn regression_an_unknown_label_decoding_into_controls_is_kept_as_written() {
    let subject = "=?x-foo-16le?B?HwRABDgEMgQ1BEIEIAA8BDgEQAQ=?=";
    let msg =
        format!("From: a@example.ru\nSubject: {subject}\nMessage-ID: <u@example.ru>\n\nbody\n");
    let out = filtered(msg.as_bytes());
    assert_eq!(out, msg.as_bytes(), "{}", String::from_utf8_lossy(&out));
    let d = mailcharset::mime::decode_unstructured(subject.as_bytes());
    assert_eq!(d.text, subject);
}

/// HTML whose Content-Type names one charset and whose `<meta>` names
/// another: the page's own declaration is the first candidate when the
/// label fails on the text, and is taken when the label reads symbols
/// inside words that it reads as letters. An ISO-8859-2 page under a
/// `us-ascii` or `utf-8` Content-Type was read as windows-1252 (`veæ`),
/// under `iso-8859-1` kept so (`Profilovací èasovaè vypr¹al`, verdict ok).
/// A right Content-Type over a wrong `<meta>` keeps its label.
#[test]
fn regression_an_html_pages_own_meta_is_the_first_candidate() {
    let text = "Profilovací časovač vypršal. Šablóna dokumentu aplikácie je už hotová, \
                ďakujem za pomoc a ľúbostný list.";
    let page = |meta: &str| {
        format!(
            "<!DOCTYPE html>\n<html><head>\n<meta charset=\"{meta}\">\n<title>x</title>\n\
             </head>\n<body>\n<p>{text}</p>\n</body></html>\n"
        )
    };
    let text_of = |out: &[u8]| {
        let m = mailcharset::message::Message::parse(out);
        let part = m.parts().into_iter().find(|p| p.is_text()).expect("text");
        let (body, _) = part.decoded_body(&m);
        String::from_utf8(body.into_owned()).expect("UTF-8 out")
    };
    for ct_label in ["us-ascii", "utf-8", "iso-8859-1", "windows-1252"] {
        let html = page("iso-8859-2");
        let bytes = encode(&html, encoding_rs::ISO_8859_2);
        let msg = message(&format!("text/html; charset={ct_label}"), &bytes);
        let got = text_of(&filtered(&msg));
        assert!(got.contains(text), "{ct_label}: {got}");
    }
    // The Content-Type right, the meta wrong: the label's reading stays.
    let html = page("iso-8859-2");
    let bytes = encode(&html, encoding_rs::WINDOWS_1250);
    let msg = message("text/html; charset=windows-1250", &bytes);
    let got = text_of(&filtered(&msg));
    assert!(got.contains(text), "{got}");
}

/// Latin text under a Cyrillic, Greek or Hebrew label: its accented
/// letters read as that script's, inside Latin words (`rИcapitulatif … Ю
/// fИvrier` under KOI8-R, verdict ok, 0 of 91 caught in a hunt); read as
/// the Latin charset detection names. Text of the label's own script with
/// Latin words beside it keeps the label. The oracle is encoding_rs's
/// encoder of the true charset.
#[test]
fn regression_latin_text_under_a_non_latin_label_is_read_as_latin() {
    let french = "Bonjour Hélène,\nJe vous envoie le récapitulatif de la réunion de mercredi : \
                  l'équipe a décidé de reporter la livraison à février.\nCordialement, François\n";
    let german = "Sehr geehrte Frau Müller,\nvielen Dank für Ihre Nachricht. Die Unterlagen \
                  schicke ich Ihnen nächste Woche zu.\nMit freundlichen Grüßen\n";
    for label in ["koi8-r", "windows-1251", "iso-8859-7", "iso-8859-5"] {
        for (text, tld) in [(french, "fr"), (german, "de")] {
            let bytes = encode(text, encoding_rs::WINDOWS_1252);
            let opts = DecodeOptions {
                tld: tld_of(tld),
                ..body_opts()
            };
            let d = charset::decode(&bytes, Some(label.as_bytes()), &opts);
            assert_eq!(&*d.text, text, "{label}: {:?}", d.findings);
            assert_eq!(d.verdict, Verdict::Mislabeled, "{label}");
        }
    }
    // Russian with Latin product names keeps its label.
    let russian = "Добрый день! Отправляю вам отчёт по Linux и Windows, а также файл README.\n\
                   Сервер nginx работает, версия PostgreSQL обновлена.\n";
    for (label, enc) in [
        ("koi8-r", encoding_rs::KOI8_R),
        ("windows-1251", encoding_rs::WINDOWS_1251),
    ] {
        let bytes = encode(russian, enc);
        let d = charset::decode(&bytes, Some(label.as_bytes()), &body_opts());
        assert_eq!(&*d.text, russian, "{label}");
        assert_eq!(d.verdict, Verdict::Ok, "{label}: {:?}", d.findings);
    }
}

/// Thai in TIS-620 (windows-874) labelled UTF-8: Thai octets pair up into
/// UTF-8 here and there (`ร¨` is `C3 A8`, `è`; a leading vowel `E0..E4`
/// and two consonants make a Samaritan or Gurmukhi letter), and those
/// letters stood for "UTF-8 letters in words", which keep a UTF-8 label
/// whatever the errors: the text came out as U+FFFD with a Mongolian
/// letter here and there (/tmp/hunt8 h_thai.py: 38 of 130, `invalid`).
/// With no line of UTF-8 and eight errors or more per such letter, they
/// are chance: read as the candidate, `mislabeled`. Thai UTF-8 with a
/// damaged octet or two keeps its label.
#[test]
fn regression_thai_tis_620_under_utf_8_is_read_as_thai() {
    let th = "การจัดเรียงในแนวแกน X ของอ็อบเจกต์ลูก\nไม่สามารถเปิดช่องแจ้งสถานะการรักษาความปลอดภัยได้\n";
    let bytes = encoding_rs::WINDOWS_874.encode(th).0.into_owned();
    assert!(std::str::from_utf8(&bytes).is_err());
    let d = charset::decode(&bytes, Some(b"utf-8"), &body_opts());
    assert_eq!((d.text.as_ref(), d.verdict.as_str()), (th, "mislabeled"));
    assert_eq!(d.replacements, 0);

    let mut dam = th.as_bytes().to_vec();
    dam[7] = 0xFF;
    dam[40] = b'?';
    let d = charset::decode(&dam, Some(b"utf-8"), &body_opts());
    assert_eq!(d.used.map(|c| c.name()), Some("UTF-8"));
    assert_eq!(d.verdict.as_str(), "invalid");
}

/// Vietnamese in windows-1258, which writes a tone as a combining mark
/// after the vowel (`tìm` is `ti` `CC` `m`): without a label, or under
/// US-ASCII or UTF-8, chardetng said windows-1258, but its reading fitted
/// no alphabet of `alphabets` and `plausible` took the tones and `ươ`
/// for UTF-8 mojibake, so windows-1252 read it (`Không tiÌm thâìy`);
/// under ISO-8859-1 the label read every octet as a letter, `ok`
/// (/tmp/hunt8 h_viet.py: 242 of 316 wrong). Italian and Catalan text,
/// whose `ì` and `ò` windows-1258 reads as tones after consonants, keeps
/// its label.
#[test]
fn regression_vietnamese_windows_1258_is_read_as_written() {
    let vi = "Không tìm thấy tệp cấu hình.\nThư điện tử riêng phần người được\n";
    // Python's cp1258 of the text decomposed as the code page writes it.
    let bytes: &[u8] = b"Kh\xf4ng ti\xccm th\xe2\xecy t\xea\xf2p c\xe2\xecu hi\xccnh.\nTh\xfd \xf0i\xea\xf2n t\xfd\xd2 ri\xeang ph\xe2\xccn ng\xfd\xf5\xcci \xf0\xfd\xf5\xf2c\n";
    let (want, _, bad) = encoding_rs::WINDOWS_1258.decode(bytes);
    assert!(!bad);
    // encoding_rs reads the tones as written: `ti` U+0300 `m`.
    assert!(
        want.starts_with("Không ti\u{300}m th\u{E2}\u{301}y"),
        "{want}"
    );
    assert_eq!(
        want.chars().filter(|c| c.is_alphabetic()).count(),
        vi.chars().filter(|c| c.is_alphabetic()).count()
    );
    for (label, verdict) in [
        (None, "suspicious"),
        (Some(&b"us-ascii"[..]), "mislabeled"),
        (Some(b"utf-8"), "mislabeled"),
        (Some(b"iso-8859-1"), "mislabeled"),
        (Some(b"windows-1252"), "mislabeled"),
        (Some(b"windows-1258"), "ok"),
    ] {
        let d = charset::decode(bytes, label, &body_opts());
        assert_eq!(
            (d.text.as_ref(), d.verdict.as_str()),
            (want.as_ref(), verdict),
            "{:?}",
            label.map(String::from_utf8_lossy)
        );
    }
    // Latvian windows-1257 (`ņ` is windows-1258's dot below, after a vowel
    // in words of several syllables: `taustiņš`), unlabelled: chardetng may
    // say windows-1258; its reading is no Vietnamese (an independent
    // review, `hunt_latin_guess` seed 2772).
    let lv: &[u8] = b"Vai p\xeekst\xe7t, kad tausti\xf2\xf0 tiek noraid\xeets. Uzr\xe2da atsl\xe7gas un v\xe7rt\xeebas. Sa\xf2em atsl\xe7gas v\xe7rt\xeebu. Uzrauga izmai\xf2as.\n";
    let d = charset::decode(lv, None, &body_opts());
    assert_eq!(
        d.text.as_ref(),
        encoding_rs::WINDOWS_1257.decode(lv).0.as_ref()
    );
    // Latin-1 Italian and Catalan with `ì`, `ò` after consonants.
    for it in [
        "Così però può andare, perché è già tardi. Sarà così anche lunedì.\n",
        "La història de l'això és molt més llarga que això, però és així.\n",
    ] {
        let latin1 = encoding_rs::WINDOWS_1252.encode(it).0.into_owned();
        let d = charset::decode(&latin1, Some(b"iso-8859-1"), &body_opts());
        assert_eq!(d.text.as_ref(), it);
        assert_ne!(d.verdict.as_str(), "mislabeled");
        let d = charset::decode(&latin1, None, &body_opts());
        assert_eq!(d.text.as_ref(), it);
    }
    // Turkish capitals under ISO-8859-9: `Ş` (0xDE) is windows-1258's
    // tilde, after the vowel of `IŞIK`, but `I`, a tilde and `IK` doubles
    // a vowel no Vietnamese syllable doubles (the property test
    // `latin_text_under_its_latin_label_never_flips`, about one run in
    // sixty, read it as Vietnamese, `mislabeled`).
    for text in ["IŞIK IŞIK IŞIK\n", "IŞIK, ÇIKIŞ VE GİRİŞ IŞIKLARI\n"] {
        let bytes = encoding_rs::WINDOWS_1254.encode(text).0.into_owned();
        for tld in [None, charset::Tld::from_domain(b"example.vn")] {
            let opts = DecodeOptions { tld, ..body_opts() };
            let d = charset::decode(&bytes, Some(b"iso-8859-9"), &opts);
            assert_eq!(
                (d.text.as_ref(), d.verdict.as_str()),
                (text, "ok"),
                "{:?}",
                d.findings
            );
        }
    }
}

/// A UTF-8 footer of signs under a windows-1251 letter (`© 2024 ACME Ltd. ·
/// Tel.`, `½ · ±`) is UTF-8 whatever the label reads: the label's
/// own-words rule (`labels_own_words`, for lines of capitals that pair up
/// into UTF-8) once took it for the label's Cyrillic (`В© 2024`; an
/// independent review: 175 of 300 footers).
#[test]
fn regression_utf8_footer_of_signs_stays_utf8() {
    let letter = encoding_rs::WINDOWS_1251
        .encode("Здравствуйте, коллеги!\nВстреча перенесена на четверг.\n-- \n")
        .0
        .into_owned();
    for footer in ["© 2024 ACME Ltd. · Tel. +7 495 000 · Fax ±\n", "½ · ±\n"] {
        let bytes = [letter.as_slice(), footer.as_bytes()].concat();
        for label in ["windows-1251", "koi8-r", "iso-8859-5"] {
            let d = charset::decode(&bytes, Some(label.as_bytes()), &body_opts());
            assert!(d.text.ends_with(footer), "{label}: {}", d.text);
        }
    }
}

/// `text` encoded in `enc`, decoded under `label`: the text and verdict.
fn lie_read(text: &str, enc: &'static Encoding, label: &str) -> (String, String) {
    let (bytes, _, unmappable) = enc.encode(text);
    assert!(!unmappable, "{text:?} in {}", enc.name());
    let d = charset::decode(&bytes, Some(label.as_bytes()), &body_opts());
    (d.text.into_owned(), d.verdict.as_str().to_string())
}

/// `text` encoded in `enc` under the lying `label` is read as written,
/// `mislabeled`.
fn assert_lie_read(text: &str, enc: &'static Encoding, label: &str) {
    let (got, verdict) = lie_read(text, enc, label);
    assert_eq!(
        (got.as_str(), verdict.as_str()),
        (text, "mislabeled"),
        "{} under {label}",
        enc.name()
    );
}

/// Central European text under the other Central European label or a
/// Western one, with no octet 0x80..0x9F to tell (an independent hunt,
/// /tmp/hunt29 a1.py: ISO-8859-2 under windows-1250 read so, `ok`, in 40
/// of 53 Czech, Slovak and Polish texts; under ISO-8859-1 in 37 of 53;
/// `zarz±du`, `die»a`, `Èe¹tina`), and windows-1250 under ISO-8859-1 with
/// `ť` at 0x9D (a C1 control) and `ř ě ů` as `ø ì ù`. Symbols inside
/// words and at their edges that the Central European charset reads as
/// letters, and a better alphabet fit for windows-1250's C1 letters.
/// Quotation marks, a `®` after a name, a `±` between numbers and
/// French `œ` under ISO-8859-1 keep their label.
#[test]
fn regression_central_european_twins_under_each_others_labels() {
    use encoding_rs::{ISO_8859_2, WINDOWS_1250, WINDOWS_1252};
    let pl = "Spotkanie zarządu odbędzie się w przyszły piątek o godzinie dziesiątej.\n";
    let cs = "Čeština má háčky a čárky, které se snadno poškodí.\nŽádost o dovolenou musíte \
              podat nejpozději do pátku.\n";
    let cs_c1 =
        "Šťastnou cestu a ať se vám v Brně líbí.\nPříliš žluťoučký kůň úpěl ďábelské ódy.\n";
    let pl_1250 = "Ząb mnie boli od tygodnia, więc jutro idę do dentysty.\nŻółta łódź płynęła \
                   powoli wzdłuż brzegu jeziora.\n";
    for (text, enc, label) in [
        (pl, ISO_8859_2, "windows-1250"),
        (pl, ISO_8859_2, "iso-8859-1"),
        (cs, ISO_8859_2, "iso-8859-1"),
        (cs, ISO_8859_2, "windows-1252"),
        (cs_c1, WINDOWS_1250, "iso-8859-1"),
        (pl_1250, WINDOWS_1250, "iso-8859-1"),
    ] {
        assert_lie_read(text, enc, label);
    }
    // Right labels, with symbols where the lie has them.
    let sk = "Povedal: «Ďakujem, je to v poriadku.» Cena je 100 € ± 5 %.\nMicrosoft® Word a ©Firma \
              s.r.o., všetky práva vyhradené.\n";
    assert_eq!(
        lie_read(sk, WINDOWS_1250, "windows-1250"),
        (sk.to_string(), "ok".to_string())
    );
    let fr = "Le cœur de la sœur est très élevé, à côté de l'œuvre.\n";
    let (got, verdict) = lie_read(fr, WINDOWS_1252, "iso-8859-1");
    assert_eq!(got, fr);
    assert_ne!(verdict, "mislabeled");
    for text in [pl, cs] {
        assert_eq!(
            lie_read(text, ISO_8859_2, "iso-8859-2"),
            (text.to_string(), "ok".to_string())
        );
        assert_eq!(
            lie_read(text, WINDOWS_1250, "windows-1250"),
            (text.to_string(), "ok".to_string())
        );
    }
}

/// GB2312 under an EUC-KR label is named for what tells it: the finding
/// counts its two-octet characters from row 0xB0 up and those beyond the
/// Hangul rows (lead above 0xC8), counted here from encoding_rs's GBK
/// octets, character by character. Two strings of the Chinese catalogs
/// that EUC-KR reads without error (none in row 0xC9).
#[test]
fn gb2312_under_euc_kr_says_how_many_characters_lie_beyond_the_hangul_rows() {
    let zh = "数据库集群在使用与服务器执行部分不同的浮点数格式\n内存不足以载入图像，试试关闭其它应用程序来释放内存\n";
    let (mut chars, mut beyond) = (0, 0);
    for c in zh.chars() {
        let b = encoding_rs::GBK
            .encode(c.encode_utf8(&mut [0; 4]))
            .0
            .into_owned();
        if let [lead @ 0xB0..=0xFE, 0xA1..=0xFE] = b[..] {
            chars += 1;
            beyond += usize::from(lead > 0xC8);
        }
    }
    let bytes = encoding_rs::GBK.encode(zh).0.into_owned();
    let d = charset::decode(&bytes, Some(b"euc-kr"), &body_opts());
    assert_eq!((&*d.text, d.verdict), (zh, Verdict::Mislabeled));
    let note = d
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::Mislabeled)
        .and_then(|f| f.note.clone())
        .expect("a mislabeled finding with a note");
    let want = format!("{beyond} of its {chars} characters lie beyond the Hangul rows");
    assert!(note.contains(&want), "{note} (want {want})");
}

/// ISO-8859-6 Arabic under windows-1256 read `ه و ى ي` as `ç è é ê`
/// inside Arabic words (`êرجé تأمêد`), `ok`: 80 of 80 in the hunt. GB2312
/// under EUC-KR read as Hangul and Hanja mixed (`퀭봤，맒숭角乖`), `ok`
/// or `invalid` (KS X 1001 has no row 0xC9): 80 of 80. ISO-8859-7 Greek
/// under windows-1253 lost `Ά` to `¶` (`¶ννα`): 37 of 80. French words
/// in windows-1256, a pilcrow before a number in Greek, Korean with Hanja
/// keep their labels.
#[test]
fn regression_arabic_greek_and_chinese_lies_between_twins() {
    use encoding_rs::{EUC_KR, GBK, ISO_8859_6, ISO_8859_7, WINDOWS_1253, WINDOWS_1256};
    let ar = "تم ارسال الرسالة بنجاح الى جميع المستخدمين في القائمة.\nيرجى مراجعة المرفقات قبل \
              الاجتماع القادم.\n";
    let el = "Άννα και Άρης θα έρθουν αύριο στην Αθήνα.\nΌλα καλά, ευχαριστώ.\n";
    let zh = "我们公司明年的计划是开发新的产品，请您在本周五之前把报告发给我，谢谢。\n生产和社会上的问题都很重要。\n";
    for (text, enc, label) in [
        (ar, ISO_8859_6, "windows-1256"),
        (el, ISO_8859_7, "windows-1253"),
        (zh, GBK, "euc-kr"),
    ] {
        assert_lie_read(text, enc, label);
        // Under its own label, as written.
        let own = if enc == GBK { "gb2312" } else { enc.name() };
        assert_eq!(
            lie_read(text, enc, own),
            (text.to_string(), "ok".to_string())
        );
    }
    let ar_fr = "Le café est très bon à Paris.\nتم ارسال الرسالة بنجاح الى جميع المستخدمين.\n";
    let el_para = "Δείτε το ¶ 3 του κανονισμού και την παράγραφο ¶4.\nΆννα\n";
    let ko = "大韓民國 憲法 第一條 대한민국은 민주공화국이다. 대한민국의 주권은 국민에게 있고, 모든 권력은 \
              국민으로부터 나온다. 國民 主權 原則을 확인합니다.\n";
    for (text, enc, label) in [
        (ar_fr, WINDOWS_1256, "windows-1256"),
        (el_para, WINDOWS_1253, "windows-1253"),
        (ko, EUC_KR, "euc-kr"),
    ] {
        assert_eq!(
            lie_read(text, enc, label),
            (text.to_string(), "ok".to_string()),
            "{label}"
        );
    }
}

/// An adversarial review of the twin rules found correct text read as
/// another charset: French and Italian under ISO-8859-1 with Slavic names
/// (`Dušan`, `Miloš`: `š` is windows-1252's too) read as windows-1250
/// (`ŕ mercredi, apršs`); windows-1253 Greek with `€ – ’` and one octet
/// damaged to 0xB6 before a word read whole as ISO-8859-7 (C1 controls);
/// Korean with Hanja (`第2條(定義) 이 法에서`) from a `.cn` sender read as
/// GBK; and the half-width katakana rule kept a short GB2312 lie under
/// `shift_jis` (`ｷﾇｳ｣ｸﾐﾐｻﾄ嶹ﾄ`, its kanji of JIS level 2 and beyond).
#[test]
fn regression_twin_rules_keep_correct_text() {
    use encoding_rs::{WINDOWS_1252, WINDOWS_1253};
    for text in [
        "Salut Dušan, la réunion avec Miloš est déplacée à mercredi, après le déjeuner.\n",
        "Ciao Tomáš, è tutto pronto per lunedì. Saluti, Aleš e Žofie\n",
    ] {
        let (got, verdict) = lie_read(text, WINDOWS_1252, "iso-8859-1");
        assert_eq!(got, text);
        assert_ne!(verdict, "mislabeled", "{text}");
    }
    let greek = b"\xd4\xef \xb6\xfc\xf3\xf4\xef\xf2 \xf4\xe7\xf2 \xe5\xf0\xe9\xf3\xea\xe5\xf5\xde\xf2 \
                  \xe5\xdf\xed\xe1\xe9 250 \x80 \xec\xe5 \xd6\xd0\xc1 \x96 \xe8\xe1 \x92\xf1\xe8\xf9 \
                  \xe1\xfd\xf1\xe9\xef \xf4\xef \xf0\xf1\xf9\xdf\x85\n";
    let d = charset::decode(greek, Some(b"windows-1253"), &body_opts());
    assert_eq!(d.text, WINDOWS_1253.decode_without_bom_handling(greek).0);
    assert_ne!(d.verdict, Verdict::Mislabeled);
    // One damaged octet before a word, nothing else to tell: not a lie.
    let text = "Παρακαλώ επιβεβαιώστε τη λήψη του μηνύματος.\n";
    let mut bytes = WINDOWS_1253.encode(text).0.into_owned();
    let at = bytes.windows(2).position(|w| w == b" \xeb").expect("λ") + 1;
    bytes[at] = 0xB6;
    let d = charset::decode(&bytes, Some(b"windows-1253"), &body_opts());
    assert_eq!((d.text.contains("¶ήψη"), d.verdict), (true, Verdict::Ok));
    let korean = "第2條(定義) 이 法에서 사용하는 用語의 뜻은 다음과 같다.\n株價가 急騰하면서 投資者들이 몰렸다.\n";
    let bytes = encoding_rs::EUC_KR.encode(korean).0.into_owned();
    for tld in ["cn", "com", "kr"] {
        let opts = DecodeOptions {
            tld: charset::Tld::from_domain(format!("example.{tld}").as_bytes()),
            ..body_opts()
        };
        let d = charset::decode(&bytes, Some(b"euc-kr"), &opts);
        assert_eq!((&*d.text, d.verdict), (korean, Verdict::Ok), "{tld}");
    }
    let chinese = "非常感谢您的";
    let bytes = encoding_rs::GBK.encode(chinese).0.into_owned();
    let opts = DecodeOptions {
        tld: charset::Tld::from_domain(b"example.cn"),
        ..body_opts()
    };
    let d = charset::decode(&bytes, Some(b"shift_jis"), &opts);
    assert_eq!((&*d.text, d.verdict), (chinese, Verdict::Mislabeled));
}

/// A letter or a reply in its label's charset over a quote or a list
/// footer in another charset (an independent hunt on replies and footers,
/// not in the repository): the whole-text rules read the sender's own
/// lines as the other charset too (`señora García` as `seсora Garcнa`
/// under ISO-8859-1 over a windows-1251 footer; a windows-1251 reply as
/// `яЕПБЕП АСДЕР` over a KOI8-R quote; `podré … Málaga` as `podr茅 … M谩laga`
/// under UTF-8 over GB2312). Those lines keep the label, the others are read
/// as their charset, `mixed-charset`; the text comes out as written. A text
/// wholly in the other charset is still read whole so.
#[test]
fn regression_own_lines_beside_a_quote_in_another_charset_keep_their_label() {
    use encoding_rs::{GBK, ISO_8859_2, KOI8_R, KOI8_U, UTF_8, WINDOWS_1251, WINDOWS_1252};
    let cases: &[(&str, &'static Encoding, &str, &'static Encoding, &str)] = &[
        (
            "Estimada señora García:\n",
            WINDOWS_1252,
            "Чтобы отказаться от подписки, отправьте письмо на адрес dev+unsubscribe@example.ru.\n",
            WINDOWS_1251,
            "iso-8859-1",
        ),
        (
            "Сервер будет недоступен в субботу с 22:00 до 02:00 по московскому времени.\n",
            WINDOWS_1251,
            "> Напоминаю, что отчёт нужно сдать до пятницы.\n> Высылаю вам исправленный \
             договор, посмотрите, пожалуйста, пункт 4.2.\n> Поздравляю с днём рождения, желаю \
             здоровья и успехов!\n> Прошу согласовать отпуск с 12 по 26 июля.\n",
            KOI8_R,
            "windows-1251",
        ),
        (
            "Давайте обговоримо це завтра телефоном.\n",
            KOI8_U,
            "> Шановні колеги, звертаємо увагу на зміни в розкладі.\n> Я не зможу приїхати до \
             Львова наступного тижня.\n> Вітаю з днем народження, бажаю щастя і здоров'я!\n> \
             Будь ласка, підтвердіть отримання цього листа.\n> З повагою, Тарас Коваленко, \
             бухгалтерія.\n",
            WINDOWS_1251,
            "koi8-u",
        ),
        (
            "В приложении фотографии с корпоратива, их можно скачать до среды.\n",
            WINDOWS_1251,
            "> Высылаю вам исправленный договор, посмотрите, пожалуйста, пункт 4.2.\n> \
             Поздравляю с днём рождения, желаю здоровья и успехов!\n> Прошу согласовать отпуск \
             с 12 по 26 июля.\n",
            KOI8_R,
            "windows-1251",
        ),
        (
            "Lamentablemente no podré asistir a la conferencia en Málaga.\n",
            UTF_8,
            "本邮件列表的存档可在网站上查看。如需退订，请发送邮件至管理员。\n",
            GBK,
            "utf-8",
        ),
        (
            "Proszę o zgodę na urlop od dwunastego do dwudziestego sierpnia.\n",
            ISO_8859_2,
            "Чтобы отказаться от подписки, отправьте письмо на адрес dev+unsubscribe@example.ru.\n",
            WINDOWS_1251,
            "iso-8859-2",
        ),
    ];
    for &(own, own_enc, quote, quote_enc, label) in cases {
        let mut bytes = own_enc.encode(own).0.into_owned();
        bytes.extend_from_slice(&quote_enc.encode(quote).0);
        let d = charset::decode(&bytes, Some(label.as_bytes()), &body_opts());
        assert_eq!(
            d.text.as_ref(),
            format!("{own}{quote}"),
            "{} over {} under {label}",
            own_enc.name(),
            quote_enc.name()
        );
        assert_eq!(d.verdict, Verdict::Suspicious, "{label}");
        assert!(
            d.findings
                .iter()
                .any(|f| f.kind == FindingKind::MixedCharset),
            "{label}: {:?}",
            d.findings
        );
        // Wholly the quote's charset: read whole as such.
        let lie = quote_enc.encode(&format!("{quote}{quote}")).0.into_owned();
        let d = charset::decode(&lie, Some(label.as_bytes()), &body_opts());
        if label != "utf-8" {
            assert_eq!(
                (d.text.as_ref(), d.verdict),
                (format!("{quote}{quote}").as_str(), Verdict::Mislabeled),
                "{} alone under {label}",
                quote_enc.name()
            );
        }
    }
}

/// The same with the UTF-8 reply damaged (an octet lost): the whole text
/// was read as the quote's charset, or as a third one (`Р”Рѕ±СЂС‹Р№` over a
/// KOI8-R quote read as windows-1251; `rÃponse … reÃ§u`). The reply keeps
/// UTF-8 with U+FFFD at the damage (`invalid`), and the quote is read in its
/// own charset, asked about the quote's lines alone.
#[test]
fn regression_damaged_utf8_reply_over_a_legacy_quote_keeps_its_lines() {
    use encoding_rs::{KOI8_R, WINDOWS_1252, WINDOWS_1254};
    let cases: &[(&str, &str, &str, &'static Encoding)] = &[
        (
            "Добрый день, Иван Петрович!\n",
            "б",
            "> Подскажите, пожалуйста, где взять ключ от переговорной?\n> К сожалению, я не \
             смогу приехать на конференцию в Новосибирск.\n> Пришлите, пожалуйста, сканы \
             паспорта и ИНН.\n> В приложении фотографии с корпоратива, их можно скачать до \
             среды.\n",
            KOI8_R,
        ),
        (
            "Merci pour votre réponse rapide, nous avons tout reçu.\n",
            "é",
            "> Le cœur du problème se trouve dans la façon dont l'œuvre est présentée.\n> \
             Pouvons-nous en parler demain matin par téléphone ?\n",
            WINDOWS_1252,
        ),
        (
            "Maalesef İzmir'deki konferansa katılamayacağım.\n",
            "ı",
            "> Merhaba Ayşe Hanım,\n> Yarın sabah telefonda görüşelim mi?\n> Hızlı cevabınız \
             için teşekkür ederim, her şeyi aldık.\n> Şirketimizin yeni adresi yukarıda \
             belirtilmiştir.\n> Toplantı perşembe günü saat 14:00'e ertelendi.\n",
            WINDOWS_1254,
        ),
    ];
    for &(reply, damaged, quote, enc) in cases {
        // The last octet of the damaged letter's first occurrence lost.
        let at = reply.find(damaged).expect("the letter") + damaged.len() - 1;
        let mut bytes = reply.as_bytes().to_vec();
        bytes.remove(at);
        bytes.extend_from_slice(&enc.encode(quote).0);
        let want_reply = String::from_utf8_lossy(&bytes[..reply.len() - 1]).into_owned();
        assert_eq!(want_reply.matches('\u{FFFD}').count(), 1, "{want_reply}");
        let d = charset::decode(&bytes, Some(b"utf-8"), &body_opts());
        assert_eq!(
            d.text.as_ref(),
            format!("{want_reply}{quote}"),
            "UTF-8 over {}",
            enc.name()
        );
        assert_eq!(d.verdict, Verdict::Invalid, "over {}", enc.name());
    }
}

/// A Latin letter over a Thai footer: windows-874 reads its accents as
/// Thai digits and marks, not as letters wedged into Latin words, so the
/// letter's lines are told by their Latin words alone; a short one (`Un
/// té`, one accented letter beside one ASCII letter in its word) is the
/// letter's too, not read as `Un t\u{e49}`. And the other way round: a
/// Big5 text whose first line, read as ISO-8859-2, looks like a Latin word
/// (`EPS °ĎŹqĄG`, more accented letters than ASCII ones in it) is Big5
/// like the rest, read whole as such.
#[test]
fn regression_latin_lines_over_a_thai_footer_and_big5_read_as_latin() {
    use encoding_rs::{BIG5, WINDOWS_874, WINDOWS_1252};
    let letter = "Estimada señora García:\nUn té con leche, por favor.\n";
    let footer = "กรุณาส่งรายงานภายในวันศุกร์นี้ ขอบคุณมากครับ\n\
                  หากต้องการยกเลิกการรับข่าวสาร กรุณาติดต่อผู้ดูแลระบบ\n";
    let mut bytes = WINDOWS_1252.encode(letter).0.into_owned();
    let footer_at = bytes.len();
    bytes.extend_from_slice(&WINDOWS_874.encode(footer).0);
    let d = charset::decode(&bytes, Some(b"iso-8859-1"), &body_opts());
    assert_eq!(d.text.as_ref(), format!("{letter}{footer}"));
    assert_eq!(d.verdict, Verdict::Suspicious);
    assert_eq!(
        mixed_finding(&d).offset,
        footer_at,
        "the footer is the other charset's: {:?}",
        d.findings
    );

    let chinese = "EPS 區段：\n這是一個中文文本，謝謝你的幫助。會議明天下午開始，我們討論問題。\n";
    let bytes = BIG5.encode(chinese).0.into_owned();
    let d = charset::decode(&bytes, Some(b"iso-8859-2"), &body_opts());
    assert_eq!(
        (d.text.as_ref(), d.verdict),
        (chinese, Verdict::Mislabeled),
        "{:?}",
        d.findings
    );
}
/// A Latin letter over a bilingual list footer, Arabic in windows-1256
/// with a French line in it whose letters (`é à è`) windows-1256 reads as
/// Latin-1 does: that line is the footer's, not the letter's (its reading
/// in the footer's charset has no letter of another script), so the footer
/// stays one block read as windows-1256 and the letter keeps its label.
/// Taken for the letter's, it split the footer in two and the whole text
/// was read as windows-1256 (`se\u{64b}ora Garc\u{64a}a`).
#[test]
fn regression_a_latin_letter_over_a_bilingual_arabic_footer_keeps_its_lines() {
    use encoding_rs::{WINDOWS_1252, WINDOWS_1256};
    let letter = "Estimada señora García:\nLe envío el informe de la reunión.\n";
    let footer = "للاشتراك في القائمة البريدية أو إلغاء الاشتراك يرجى زيارة الموقع\n\
                  Pour vous désabonner, écrivez à la liste très simplement.\n\
                  جميع الحقوق محفوظة للجمعية العربية لمستخدمي البرمجيات الحرة\n";
    let mut bytes = WINDOWS_1252.encode(letter).0.into_owned();
    let footer_at = bytes.len();
    bytes.extend_from_slice(&WINDOWS_1256.encode(footer).0);
    let d = charset::decode(&bytes, Some(b"iso-8859-1"), &body_opts());
    assert_eq!(d.text.as_ref(), format!("{letter}{footer}"));
    assert_eq!(d.verdict, Verdict::Suspicious);
    assert_eq!(mixed_finding(&d).offset, footer_at, "{:?}", d.findings);
}

/// A correct Content-Type over a stale `<meta>` keeps its label under a CJK
/// or Thai label too: their punctuation and Thai's marks sit inside words
/// by nature, and the rule that lets a page's own declaration turn
/// symbols inside words into letters read a Thai page as GBK and a GB2312
/// one as windows-1251 (an independent hunt, 24 of 358 such pages).
#[test]
fn regression_cjk_and_thai_pages_keep_their_label_over_a_stale_meta() {
    use encoding_rs::{GBK, WINDOWS_874};
    for (text, enc, label, meta) in [
        (
            "<p>กรุณาส่งรายงานภายในวันศุกร์นี้</p>\n",
            WINDOWS_874,
            "windows-874",
            "gbk",
        ),
        (
            "<p>祝您生日快乐，身体健康，工作顺利！</p>\n",
            GBK,
            "gb2312",
            "windows-1251",
        ),
    ] {
        let bytes = enc.encode(text).0.into_owned();
        let opts = DecodeOptions {
            declared: charset::Charset::for_label(meta.as_bytes()),
            ..body_opts()
        };
        assert!(opts.declared.is_some(), "{meta}");
        // The stale declaration reads the page cleanly: the rule's case.
        let (_, _, bad) = Encoding::for_label(meta.as_bytes())
            .expect("a WHATWG label")
            .decode(&bytes);
        assert!(!bad, "{meta}");
        let d = charset::decode(&bytes, Some(label.as_bytes()), &opts);
        assert_eq!((d.text.as_ref(), d.verdict), (text, Verdict::Ok), "{label}");
    }
}

/// A text wholly in another charset, with a line that mixes scripts as
/// its first or last 8-bit line (an adversarial review of the own-lines
/// rule: 816 of 11,556 such edge lines were kept as the label's mojibake,
/// `C3 47ìF/25V` under ISO-8859-1 for Greek `C3 47μF/25V`, `йфпзп: 15 400
/// ТХВ.` under windows-1251 for KOI8-R `ИТОГО: 15 400 руб.`, `合计：1,250元`
/// under UTF-8 as three characters and two U+FFFD): read whole as that
/// charset, as before the rule.
#[test]
fn regression_a_lie_with_a_mixed_line_at_its_edge_is_read_whole() {
    use encoding_rs::{GBK, ISO_8859_7, KOI8_R};
    let cases: &[(&str, &'static Encoding, &str)] = &[
        (
            "Καλημέρα σας, κύριε Παπαδόπουλε,\nΠαρακαλώ επιβεβαιώστε την παραγγελία μέχρι την \
             Παρασκευή.\nΤο συνέδριο θα πραγματοποιηθεί στη Θεσσαλονίκη τον Μάιο.\nΗ παράδοση \
             μπορεί να γίνει μέσα σε δέκα εργάσιμες ημέρες.\nΜε εκτίμηση,\nΓιώργος Νικολάου\n\
             C3 47μF/25V\n",
            ISO_8859_7,
            "iso-8859-1",
        ),
        (
            "Добрый день!\nВысылаю вам счёт за поставку оборудования.\nПрошу оплатить до \
             пятницы, реквизиты в приложении.\nС уважением, Иван Петров.\nИТОГО: 15 400 руб.\n",
            KOI8_R,
            "windows-1251",
        ),
        (
            "您好！\n请查收本月的发票，并在周五之前完成付款。\n如有任何问题，请随时与我们联系。\n\
             谢谢！\n合计：1,250元\n",
            GBK,
            "utf-8",
        ),
        // `谢` is `D0 BB`, valid UTF-8 `л`: a line of them is `лллл` (the
        // property test `a_label_that_cannot_decode_the_text_is_seen_and_the_text_recovered`,
        // a mutation pass).
        (
            "这是一个中文文本，谢谢你的帮助。会议明天下午开始。\n谢谢谢谢\n",
            GBK,
            "utf-8",
        ),
    ];
    for &(text, enc, label) in cases {
        let bytes = enc.encode(text).0.into_owned();
        let d = charset::decode(&bytes, Some(label.as_bytes()), &body_opts());
        assert_eq!(
            (d.text.as_ref(), d.verdict),
            (text, Verdict::Mislabeled),
            "{} under {label}",
            enc.name()
        );
    }
}

/// A legacy reply above a UTF-8 quote, read whole as damaged UTF-8 (UTF-8
/// letters outnumber its errors): a KOI8-U line whose `н і` pair up into
/// one UTF-8 character by chance lost every letter to U+FFFD, and so did a
/// Polish ISO-8859-2 line whose 8-bit octets are all below 0xC0 (where
/// UTF-8 keeps its continuation octets). They are the label's lines; the
/// quote stays UTF-8.
#[test]
fn regression_a_legacy_reply_above_a_utf8_quote_keeps_its_letters() {
    use encoding_rs::{ISO_8859_2, KOI8_U};
    let cases: &[(&str, &'static Encoding, &str, &str)] = &[
        (
            "Доброго дня, пані Оксано!\n",
            KOI8_U,
            "> Будь ласка, підтвердіть отримання цього листа.\n> Прошу погодити відпустку з \
             першого по чотирнадцяте серпня.\n> З повагою, Тарас Коваленко, бухгалтерія.\n> \
             Давайте обговоримо це завтра телефоном.\n",
            "koi8-u",
        ),
        (
            "Już wyślą mu ją też, dobrze?\n",
            ISO_8859_2,
            "> Aktualizacja została zainstalowana, proszę ponownie uruchomić komputer.\n> \
             Proszę potwierdzić otrzymanie tej wiadomości.\n> Z poważaniem, Grzegorz \
             Brzęczyszczykiewicz, dział zakupów.\n",
            "iso-8859-2",
        ),
    ];
    for &(reply, enc, quote, label) in cases {
        let mut bytes = enc.encode(reply).0.into_owned();
        bytes.extend_from_slice(quote.as_bytes());
        let d = charset::decode(&bytes, Some(label.as_bytes()), &body_opts());
        assert_eq!(d.text.as_ref(), format!("{reply}{quote}"), "{label}");
    }
}

/// `text` in `enc` (encoding_rs the oracle) and the UTF-8 characters its
/// octets pair up into, which the cases below must have.
fn latin_octets(text: &str, enc: &'static Encoding) -> (Vec<u8>, usize) {
    let (bytes, _, unmappable) = enc.encode(text);
    assert!(!unmappable, "{text:?} in {}", enc.name());
    let pairs = String::from_utf8_lossy(&bytes)
        .chars()
        .filter(|c| !c.is_ascii() && *c != '\u{FFFD}')
        .count();
    (bytes.into_owned(), pairs)
}

/// Latin text under its own label whose octets happen to be valid UTF-8
/// (a capital before a Windows sign, `PÅ–` is UTF-8's `PŖ`; two capitals
/// of an all-caps word, ISO-8859-2 `CZĘŚCI` is `CZʦCI`) keeps its label,
/// whole and line by line (an independent hunt, /tmp/hunt33-latin gen.py
/// seeds 1-3: 25, 25 and 22 of some 1,100 correctly labelled texts each
/// were read so, verdict `mislabeled` or `suspicious`).
#[test]
fn regression_latin_octets_that_pair_into_utf8_keep_their_label() {
    let enc = |l: &str| Encoding::for_label(l.as_bytes()).expect("a label encoding_rs knows");
    // Valid UTF-8 from end to end, three multi-octet characters or more.
    let whole = [
        (
            "Venlig hilsen\nSÅ–\nKOM PÅ…\nHej alle,\n\n> Nå…”\n> SÅ–\n",
            "windows-1252",
        ),
        (
            "CZĘŚCI ZAMIENNE DLA MĘŻCZYZN\nDo zobaczenia!\nPRÓŻNIA\n",
            "iso-8859-2",
        ),
        (
            "S pozdravom\nVÝŠKA: 12 m\nVÝŠKA: 12 m\nVÝŠKA: 12 m\n",
            "iso-8859-2",
        ),
        ("LÍŠKA A VÝŠKA\nLÍŠKA A VÝŠKA\n", "windows-1250"),
        ("ÎȘI\nCÂȘTIG\nCÂȘTIG\n", "iso-8859-16"),
        // Mac OS Roman's apostrophe before a letter: UTF-8's Armenian.
        ("l’école et l’équipe, qu’à l’île\n", "macintosh"),
    ];
    for (text, label) in whole {
        let (bytes, pairs) = latin_octets(text, enc(label));
        assert!(
            std::str::from_utf8(&bytes).is_ok() && pairs >= 3,
            "{text:?}"
        );
        let d = charset::decode(&bytes, Some(label.as_bytes()), &body_opts());
        assert_eq!(d.text, text, "{label}");
        assert_ne!(d.verdict, Verdict::Mislabeled, "{label}: {text:?}");
    }
    // Lines of it in a text that is not UTF-8, read as UTF-8 lines.
    let lines = [
        (
            "Bonjour à tous,\nLa facture est PAYÉ…\nLe produit NESTLÉ™ est en rupture.\nOLÉ…\nÀ bientôt,\n",
            "windows-1252",
        ),
        (
            "Det er så fint.\nKOM PÅ…\nKOM PÅ…\nMed venlig hilsen\nSÅ–\n",
            "windows-1252",
        ),
        (
            "El CAFÉ® de siempre.\nLa factura está adjunta.\nEl CAFÉ® de siempre.\nEl CAFÉ® de siempre.\n",
            "iso-8859-15",
        ),
    ];
    for (text, label) in lines {
        let (bytes, pairs) = latin_octets(text, enc(label));
        assert!(
            std::str::from_utf8(&bytes).is_err() && pairs >= 3,
            "{text:?}"
        );
        let d = charset::decode(&bytes, Some(label.as_bytes()), &body_opts());
        assert_eq!(d.text, text, "{label}");
        assert_eq!(d.verdict, Verdict::Ok, "{label}: {text:?}");
    }
}

/// A UTF-8 footer or signature below such a letter is still read as UTF-8,
/// and the letter's lines that pair up by chance keep the label: before,
/// they were UTF-8 too (`PAYɅ`), or, when they paired into no Latin letter
/// (`PRÓŻNIA` as Cyrillic `PRӯNIA`), the footer stayed mojibake
/// (`JĂĽrgen MĂĽller`). Unlabelled, such lines are no UTF-8 writer's
/// either: a Norwegian letter with `PÅ…` and `«JA»` was damaged UTF-8.
#[test]
fn regression_a_utf8_footer_below_latin_lines_that_pair_up_by_chance() {
    let enc = |l: &str| Encoding::for_label(l.as_bytes()).expect("a label encoding_rs knows");
    let footer = "-- \nJürgen Müller · Geschäftsführer\n";
    for (text, label) in [
        (
            "Dziękuję za odpowiedź.\nCZĘŚCI ZAMIENNE DLA MĘŻCZYZN\nPRÓŻNIA\n",
            "windows-1250",
        ),
        (
            "Merci pour votre réponse.\nLa facture est PAYÉ…\nOLÉ…\n",
            "windows-1252",
        ),
        (
            "Schůzka bude ve středu.\nLÍŠKA A VÝŠKA\nÚŽAS!\n",
            "iso-8859-2",
        ),
    ] {
        let (letter, _) = latin_octets(text, enc(label));
        let bytes = [letter.as_slice(), footer.as_bytes()].concat();
        let d = charset::decode(&bytes, Some(label.as_bytes()), &body_opts());
        assert_eq!(d.text, format!("{text}{footer}"), "{label}");
    }
    let text = "Svaret er «JA».\nPÅ…\nTusen takk for sist.\nPÅ…\n\n> PÅ…\n> Ha en fin helg!\n";
    let (bytes, pairs) = latin_octets(text, encoding_rs::WINDOWS_1252);
    assert!(pairs >= 3);
    let d = charset::decode(&bytes, None, &body_opts());
    assert_eq!(d.text, text);
    // A UTF-8 writer's text under a Latin label is still UTF-8, its
    // capitals in words and its guillemets and dashes included.
    for text in ["«OK» — MÜLLER GmbH, Köln\n", "Grüße — «SPAß» ÄÖÜ\n"] {
        let d = charset::decode(text.as_bytes(), Some(b"windows-1252"), &body_opts());
        assert_eq!(d.text, text);
    }
}

/// A UTF-8 reply whose only characters beyond ASCII are its typography
/// (`—`, `’`), over a quote in a Latin charset, under its `utf-8` label:
/// the reply is UTF-8's own text, and the quote the other charset's. The
/// whole text was read in the quote's charset, the reply's `—` as `â€”`
/// (an independent hunt, /tmp/hunt33-latin gen.py seeds 1-3: 67, 65 and 77
/// of some 500 replies over a Latin quote; each reply right now, none
/// worse).
#[test]
fn regression_a_utf8_reply_of_typography_over_a_latin_quote_keeps_utf8() {
    for (reply, quote, enc) in [
        (
            "Sounds good — see you then.\n\nOn Mon, Hans wrote:\n",
            "> Takk fyrir síðast.\n> Bestu kveðjur\n> ÞETTA ER MJÖG GOTT.\n> Þetta er mjög gott.\n",
            encoding_rs::WINDOWS_1252,
        ),
        (
            "D’accord pour jeudi.\nD’accord pour jeudi.\n\nLe 3 mars, Jean a écrit :\n",
            "> Merci pour votre réponse rapide.\n> À bientôt,\n> Le café était froid.\n",
            encoding_rs::ISO_8859_15,
        ),
    ] {
        let (q, _, unmappable) = enc.encode(quote);
        assert!(!unmappable);
        let bytes = [reply.as_bytes(), &q].concat();
        assert!(std::str::from_utf8(&bytes).is_err());
        let d = charset::decode(&bytes, Some(b"utf-8"), &body_opts());
        assert_eq!(d.text, format!("{reply}{quote}"));
        assert_eq!(d.verdict, Verdict::Suspicious);
        mixed_finding(&d);
    }
}

/// Latin text under a `utf-8` lie whose only valid UTF-8 characters are
/// chance pairings (`PÅ…`, UTF-8's `PŅ`; `NÅ…`) is recovered: those
/// characters made UTF-8 "letters in words", which refused every
/// single-byte candidate, and the text stayed U+FFFD for each `ø å ä`
/// (an independent hunt, /tmp/hunt33-latin gen.py seeds 1-3: 22, 16 and
/// 18 such lies read as written that were not, none worse).
#[test]
fn regression_a_latin_lie_whose_utf8_is_chance_is_recovered() {
    for text in [
        "Møtet er flyttet til torsdag.\nHa en fin helg!\nJeg kommer på fredag.\nSvaret er «JA».\nPÅ…\nJeg kommer på fredag.\nTakk for hjelpen!\n",
        "Tack för hjälpen!\nNÅ…\n\nOn Monday, Hans wrote:\n> Kan du skicka rapporten före fredag?\n> Med vänliga hälsningar\n> Tack för hjälpen!\n> Kan du skicka rapporten före fredag?\n",
        "KOM PÅ…\nHusk at aflevere rapporten før fredag.\n\n-- \nSøren Ærø\nSØREN ÆRØ\n",
    ] {
        let (bytes, pairs) = latin_octets(text, encoding_rs::WINDOWS_1252);
        assert!(
            pairs >= 1 && std::str::from_utf8(&bytes).is_err(),
            "{text:?}"
        );
        let d = charset::decode(&bytes, Some(b"utf-8"), &body_opts());
        assert_eq!(d.text, text);
        assert_eq!(d.verdict, Verdict::Mislabeled);
    }
}

/// A Latin quote below a UTF-8 reply whose capital `Á` or `À` stands
/// before a Windows sign (`JÁ…` is `C1 85`, an overlong form of `E`), or
/// whose small `à` does (`voilà…”`), is no UTF-8 writer's overlong form:
/// it made the label "explain" the text, and the quote stayed U+FFFD. And
/// a reply whose UTF-8 is a mark of two octets (`¡`) keeps it against a
/// Latin quote (the whole was read as windows-1252, `Â¡gracias`). An
/// independent hunt, /tmp/hunt33-latin gen.py seeds 1-3: 10, 16 and 11
/// texts read as written that were not, none worse.
#[test]
fn regression_latin_overlong_shapes_and_two_octet_marks_over_a_latin_quote() {
    for (reply, quote) in [
        (
            "Sounds good — see you then.\n\nOn Mon, Hans wrote:\n",
            "> O relatório está em anexo.\n> Cumprimentos,\n> JÁ…\n> Não se esqueça do prazo.\n> CUMPRIMENTOS,\n",
        ),
        (
            "Recibido, ¡gracias!\n\nOn Mon, Hans wrote:\n",
            "> El pedido ya ESTÁ…\n> AQUÍ—lo tienes.\n> Nos vemos el lunes en la oficina.\n> JAMÁS…\n> El año pasado fue difícil.\n",
        ),
    ] {
        let (q, _) = latin_octets(quote, encoding_rs::WINDOWS_1252);
        let bytes = [reply.as_bytes(), &q].concat();
        let d = charset::decode(&bytes, Some(b"utf-8"), &body_opts());
        assert_eq!(d.text, format!("{reply}{quote}"));
    }
    // The whole text a lie: read as written.
    let text = "El pedido ya ESTÁ…\nJAMÁS…\nEl año pasado fue difícil.\nLa reunión es mañana.\n";
    let (bytes, _) = latin_octets(text, encoding_rs::WINDOWS_1252);
    let d = charset::decode(&bytes, Some(b"utf-8"), &body_opts());
    assert_eq!((d.text.as_ref(), d.verdict), (text, Verdict::Mislabeled));
}

/// UTF-8 whose characters a Latin label's text could make by chance only
/// in shape: capitals of Latin Extended-A ending words (Romanian
/// `FACTURĂ` is windows-1252's `FACTURÄ‚`: `‚` ends no word), decomposed
/// accents (`C` and U+030C, which windows-1250 reads `CČŚ`), and, without
/// a label, damaged UTF-8 whose damaged octet leaves a letter alone
/// (Turkish `aktarım` and 0x85). An adversarial review of the chance-pair
/// rule found each read as mojibake (15 of 8,016 and 63 of 2,400), where
/// the code before it read them right. The oracle is the text itself,
/// written as UTF-8.
#[test]
fn regression_utf8_capitals_and_marks_are_no_chance_pairs() {
    for (text, label) in [
        ("FACTURĂ PROFORMĂ NOUĂ\n", "iso-8859-16"),
        ("FACTURĂ PROFORMĂ NOUĂ\n", "windows-1252"),
        ("PROŚBA O ZWROT ZA USŁUGĘ I OPŁATĘ\n", "windows-1250"),
        (
            "ŽELIM RAC\u{30C}UN I PLAC\u{301}ANJE KARTICOM\n",
            "windows-1250",
        ),
    ] {
        let d = charset::decode(text.as_bytes(), Some(label.as_bytes()), &body_opts());
        assert_eq!(
            (&*d.text, d.verdict),
            (text, Verdict::Mislabeled),
            "{label}: {:?}",
            d.findings
        );
    }
    let text = "Dosya aktarımı başarısız oldu, lütfen tekrar deneyin.\n";
    let mut bytes = text.as_bytes().to_vec();
    let at = text.find("mı ").unwrap() + 1;
    bytes.insert(at, 0x85);
    let d = charset::decode(&bytes, None, &body_opts());
    assert_eq!(d.used, Some(charset::Charset::UTF_8), "{:?}", d.findings);
    assert_eq!(d.replacements, 1);
    assert_eq!(d.text.replace('\u{FFFD}', ""), text);
}

/// The ordinal indicators `º ª` of Spanish, Portuguese, Galician, Catalan
/// and Italian mail stand before letters after a number: school groups
/// (`1ºA`, `2ºBach`, `1ºESO`), degrees (`25ºC`, typed with the ordinal
/// key), floors (`1ºDto`), editions (`1ªEd`). Session 34's places of
/// `ª º` (before no letter but `s`) made such a short text's words
/// foreign to every alphabet: under `iso-8859-1`, `windows-1252` and
/// `iso-8859-15` it was read as windows-1250 (`1şA`), unlabelled as
/// windows-1250 or ISO-8859-4 (`1ģA`). A generated review set of 20,000
/// short texts (seed 1): 174 changed, every one for the worse. After a
/// number (or its period, `1.ºA` as the Spanish academy writes it) they
/// are the languages' own, and `º` before a capital (`25 ºC`); Romanian
/// `ş` read as `º` (`fiºier`, `ºi`) never follows a digit nor comes
/// before a capital.
#[test]
fn regression_ordinals_before_a_letter_after_a_number_keep_the_label() {
    let texts = [
        "Grupos 1ºA, 1ºB, 2ºA y 2ºB",
        "1ºA 2ºB 25ºC",
        "Rua da Paz 12, 1ºDto, 2ªEd",
        "Temperatura 30ºC en 2ºBach",
        "1ªEd 2ºEsq",
        "Grupo 1.ºA e 2.ºB",
        "25 ºC 30 ºC 18 ºF",
    ];
    for text in texts {
        for (label, enc) in [
            ("iso-8859-1", encoding_rs::WINDOWS_1252),
            ("windows-1252", encoding_rs::WINDOWS_1252),
            ("iso-8859-15", encoding_rs::ISO_8859_15),
        ] {
            let octets = encode(text, enc);
            let d = charset::decode(&octets, Some(label.as_bytes()), &body_opts());
            assert_ne!(
                d.verdict,
                Verdict::Mislabeled,
                "{label} {text}: {:?}",
                d.findings
            );
            assert_eq!(&*d.text, text, "{label}");
        }
        let octets = encode(text, encoding_rs::WINDOWS_1252);
        for tld in ["com", "es", "pt"] {
            let opts = DecodeOptions {
                tld: charset::Tld::from_domain(format!("example.{tld}").as_bytes()),
                ..body_opts()
            };
            let d = charset::decode(&octets, None, &opts);
            assert_eq!(&*d.text, text, "unlabelled from .{tld}");
        }
    }
}

/// Portuguese capitals under a Latin label: `ÇÕ` (0xC7 0xD5) is a common
/// Hangul syllable in windows-949 (`합`), and the rest of `AÇÕES E
/// OPÇÕES` ASCII, so session 34's test of short Korean under a Latin
/// label (`east_asian_lie`) read it as `A합ES E OP합ES`, a correct label
/// overridden, in bodies and Subjects. Korean text has syllables side by
/// side; these stand alone between Latin letters.
#[test]
fn regression_portuguese_capitals_under_a_latin_label_are_not_korean() {
    for text in [
        "AÇÕES E OPÇÕES",
        "ELEIÇÕES INFORMAÇÕES",
        "ELEIÇÕES AS 1ºA INFORMAÇÕES",
    ] {
        for label in ["iso-8859-1", "windows-1252", "iso-8859-15"] {
            let octets = encode(text, encoding_rs::WINDOWS_1252);
            let d = charset::decode(&octets, Some(label.as_bytes()), &body_opts());
            assert_ne!(
                d.verdict,
                Verdict::Mislabeled,
                "{label} {text}: {:?}",
                d.findings
            );
            read_as_written_under(text, &octets, &[label]);
        }
    }
}

/// Estonian writes `õ` anywhere, Portuguese only before `e`: counted
/// wherever it stands, Portuguese holds an Estonian text's `õ` as well as
/// Estonian does, and session 34's second look at the words foreign to
/// that alphabet (places applied) took every Estonian word with `õ` for a
/// doubtful one. A correctly labelled Estonian text with a damaged octet
/// (`ãõik` under ISO-8859-13, a C1 control under ISO-8859-4) was read as
/// Mac OS Roman, `õ` as `ı` (`ıhtu kıik`, Turkish to the alphabets). A
/// review set of 20,000 short damaged texts (seed 9): 3 such. The second
/// look is for an alphabet that holds more of the letters without the
/// places than the best one with them.
#[test]
fn regression_damaged_estonian_keeps_its_label() {
    for (label, octets) in [
        (
            "iso-8859-13",
            &b"el \xf5htu k\xf5ik s\xf5num los \xe3\xf5ik los k\xf5ik\n"[..],
        ),
        (
            "iso-8859-4",
            b"t\xf5es\x8di P\xf5ltsamaa del \xf5petaja P\xf5ltsamaa t\xf5esti da por\n",
        ),
    ] {
        let d = charset::decode(octets, Some(label.as_bytes()), &body_opts());
        assert_ne!(d.verdict, Verdict::Mislabeled, "{label}: {:?}", d.findings);
        assert!(
            d.text.contains("Põltsamaa") || d.text.contains("õhtu"),
            "{label}: {}",
            d.text
        );
    }
}

/// Central European windows-1250 under a Western label with one `ť Ť Ź`
/// (0x9D 0x8D 0x8F: octets windows-1252 has no character for, which it
/// reads as C1 controls). Under `windows-1252` nothing asked: the text
/// came out `Nainštalovaœ balík Vertikálna výplò` (`ť` a C1 control),
/// verdict `ok`; under `iso-8859-1` the rule for a windows-1250 writer
/// asked for two such letters. One is enough now when a word the reading
/// changes is no language's word as the label reads it (`výplò`). Two of `Ś ś ź`
/// (`Œ œ Ÿ` in windows-1252) are asked under `windows-1252` too, as under
/// `iso-8859-1`. (The mutation pass's finding, 2026-11-28; on catalog
/// texts of cs, sk, pl, hu, hr, sl with such an octet: under
/// windows-1252 748 of 3,000 read as written before, 1,088 after; under
/// iso-8859-1 1,054 and 1,088.) The text is encoded by encoding_rs.
#[test]
fn regression_windows_1250_under_a_western_label_is_read_as_written() {
    // Catalog strings (sk, pl) the rule fixed in the measurement.
    let cases = [
        "Nainštalovať balík Vertikálna výplň",
        "Sťahuje sa Vertikálna výplň uvedených viacero výstupných súborov",
        "Określa, czy zegar wyświetla sekundy Nieprawidłowa wartość",
        "Kod źródłowy Lista celów kopiowania do schowka i źródeł DND obsługiwanych",
    ];
    for text in cases {
        let (octets, _, unmappable) = encoding_rs::WINDOWS_1250.encode(text);
        assert!(!unmappable);
        for label in ["windows-1252", "iso-8859-1"] {
            let msg = message(&format!("text/plain; charset={label}"), &octets);
            assert_eq!(
                body_text(&filtered(&msg)),
                format!("{text}"),
                "{label}: {text}"
            );
            let (_, verdict, findings) = audit_body(&msg);
            assert_eq!(verdict, "mislabeled", "{label}: {text}");
            assert!(
                findings.contains(&"mislabeled".to_string()),
                "{label}: {findings:?}"
            );
        }
    }
}

/// The controls: Western text under `windows-1252` with one damaged octet
/// at 0x9D (windows-1250's `ť`) beside a Slavic name keeps the label's
/// reading but for that octet (the Italian `è` would be `č`, `Hòa`
/// `Hňa`); French with `œ` twice, and Mac OS Roman Italian whose `ù` is
/// 0x9D (`più`, and `à` at 0x88, which windows-1250 has no character for
/// either), are not windows-1250 text. An octet windows-1252 has no
/// character for, left as the C1 control WHATWG reads, is reported
/// (it was `ok`).
#[test]
fn western_text_with_an_octet_windows_1252_lacks_keeps_its_reading() {
    for (octets, label) in [
        (
            &b"Il pacchetto \xe8 installato? \x8eu\x9eemberk \x9da rimozione"[..],
            "windows-1252",
        ),
        (&b"Khanh H\xf2a Pre\x9aovsk\xfd \x9draj"[..], "windows-1252"),
        (&b"Khanh H\xf2a Pre\x9aovsk\xfd \x9draj"[..], "iso-8859-1"),
        (
            &b"Le c\x9cur et les \x9cufs de Ma\xeftre Ren\xe9."[..],
            "windows-1252",
        ),
        (
            &b"Facolt\x88 manuali: solo i file pi\x9d recenti"[..],
            "windows-1252",
        ),
    ] {
        let msg = message(&format!("text/plain; charset={label}"), octets);
        let (western, _) = encoding_rs::WINDOWS_1252.decode_without_bom_handling(octets);
        let got = body_text(&filtered(&msg));
        assert_eq!(got.chars().count(), western.chars().count(), "{got}");
        for (g, w) in got.chars().zip(western.chars()) {
            // The C1 control is the damaged octet: what stands there may
            // differ, nothing else.
            if !('\u{80}'..='\u{9f}').contains(&w) {
                assert_eq!(g, w, "{label}: {got} against {western}");
            }
        }
        let (_, verdict, _) = audit_body(&msg);
        assert_ne!(verdict, "mislabeled", "{label}: {got}");
    }
    let msg = message(
        "text/plain; charset=windows-1252",
        b"Viele Gr\x81\xdfe aus M\xfcnchen, bis bald.",
    );
    let (_, verdict, findings) = audit_body(&msg);
    assert_eq!(verdict, "suspicious");
    assert!(
        findings.contains(&"c1-in-latin1".to_string()),
        "{findings:?}"
    );
}
