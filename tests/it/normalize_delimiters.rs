//! A converted text must not carry a line that is the delimiter of a
//! multipart around it. Its decoded content may hold one (base64 and
//! quoted-printable `=2D-` hide it in the input); written back bare (7bit,
//! 8bit, or quoted-printable, which leaves `-` as it is and may break a
//! long line just before one), it ended the part there: the text after it
//! became parts of their own and the parts after it an epilogue, a MIME
//! structure that appears only after normalization, behind every scanner
//! that looked at the input. Each case is read back by the crate's parser
//! and, where python3 is installed, by Python's `email` package: the same
//! leaves, the text as it was, the attachment's octets identical.

use crate::common;

use mailcharset::message::transfer::{self, Cte, Newline};
use mailcharset::message::{Message, PartKind};
use mailcharset::normalize::{self, Action, Options};
use std::borrow::Cow;

/// The attachment every case carries after its text.
const PDF: &[u8] = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj << >> endobj\n%%EOF\n";

/// One leaf as a reader sees it: type, file name, content (the
/// transfer-decoded octets).
type Leaf = (String, Option<String>, Vec<u8>);

/// The attachment every message here carries, as a leaf.
fn invoice() -> Leaf {
    (
        "application/pdf".into(),
        Some("invoice.pdf".into()),
        PDF.to_vec(),
    )
}

/// The leaves of `raw` as the crate's parser reads them.
fn leaves(raw: &[u8]) -> Vec<Leaf> {
    let m = Message::parse(raw);
    m.parts()
        .into_iter()
        .filter(|p| matches!(p.kind, PartKind::Leaf))
        .map(|p| {
            let ct = &p.content_type;
            let name = ct.param("name").map(|n| n.value.clone());
            (
                format!("{}/{}", ct.media_type, ct.subtype),
                name,
                p.decoded_body(&m).0.into_owned(),
            )
        })
        .collect()
}

/// The leaves of `raw` as Python's `email` reads them, or None (a skip
/// recorded, never a pass) without python3.
fn python_leaves(test: &str, raw: &[u8]) -> Option<Vec<Leaf>> {
    let script = "import sys, email, email.policy\n\
        m = email.message_from_bytes(sys.stdin.buffer.read(), policy=email.policy.compat32)\n\
        for p in m.walk():\n\
        \x20   if not p.is_multipart():\n\
        \x20       print(p.get_content_type(), p.get_param('name') or '-', (p.get_payload(decode=True) or b'').hex())\n";
    let out = common::python(test, script, raw)?;
    let out = String::from_utf8(out).expect("ASCII");
    Some(
        out.lines()
            .map(|l| {
                let mut f = l.split(' ');
                let ty = f.next().unwrap_or_default().to_string();
                let name = f.next().filter(|n| *n != "-").map(str::to_string);
                let hex = f.next().unwrap_or_default();
                let bytes = (0..hex.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
                    .collect();
                (ty, name, bytes)
            })
            .collect(),
    )
}

fn b64(bytes: &[u8]) -> Vec<u8> {
    let mut out = transfer::encode(Cte::Base64, bytes, Newline::Crlf).into_owned();
    out.extend_from_slice(b"\r\n");
    out
}

/// A text part (header fields, then `body`, written as it travels), and
/// after it, in the multipart of `boundary`, the PDF attachment.
fn with_attachment(boundary: &str, text_part: &[u8]) -> Vec<u8> {
    [
        format!(
            "From: a@example.invalid\r\nTo: b@example.invalid\r\nSubject: raw source\r\n\
             MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"{boundary}\"\r\n\r\n\
             --{boundary}\r\n"
        )
        .as_bytes(),
        text_part,
        format!(
            "\r\n--{boundary}\r\nContent-Type: application/pdf; name=\"invoice.pdf\"\r\n\
             Content-Disposition: attachment; filename=\"invoice.pdf\"\r\n\
             Content-Transfer-Encoding: base64\r\n\r\n"
        )
        .as_bytes(),
        &b64(PDF),
        format!("\r\n--{boundary}--\r\n").as_bytes(),
    ]
    .concat()
}

fn text_part(ct: &str, cte: &str, body: &[u8]) -> Vec<u8> {
    [
        format!("Content-Type: {ct}\r\nContent-Transfer-Encoding: {cte}\r\n\r\n").as_bytes(),
        body,
    ]
    .concat()
}

/// The cases: (name, message, options, the text it holds as UTF-8).
fn cases() -> Vec<(String, Vec<u8>, Options, String)> {
    let eight = Options {
        eight_bit: true,
        ..Options::default()
    };
    let utf8_headers = Options {
        headers: normalize::HeaderMode::Utf8,
        ..Options::default()
    };
    let mut out = Vec::new();
    // Latin-1 in base64, the parent's close delimiter in it: written as
    // quoted-printable it ended the multipart, the PDF in the epilogue.
    let b = "000000000000a1b2c3d4e5f6";
    let text = format!(
        "Gr\u{fc}\u{df}e, hier der Quelltext:\r\n--{b}--\r\nSch\u{f6}ne Gr\u{fc}\u{df}e\r\n"
    );
    let latin1 = encoding_rs::WINDOWS_1252.encode(&text).0.into_owned();
    for (name, opts) in [
        ("latin1-base64", Options::default()),
        ("latin1-base64 --8bit", eight),
        ("latin1-base64 --headers utf8", utf8_headers),
    ] {
        let raw = with_attachment(
            b,
            &text_part("text/plain; charset=iso-8859-1", "base64", &b64(&latin1)),
        );
        out.push((name.to_string(), raw, opts, text.clone()));
    }
    // ASCII under an unknown label (written with charset=utf-8, 7bit): a
    // delimiter and a whole part smuggled in the text.
    let b = "Apple-Mail=_0A1B2C3D-1234";
    let text = format!(
        "Here is the raw source:\r\n--{b}\r\nContent-Type: text/html\r\n\r\n<p>smuggled</p>\r\n--{b}--\r\nbye\r\n"
    );
    let raw = with_attachment(
        b,
        &text_part(
            "text/plain; charset=x-unknown",
            "base64",
            &b64(text.as_bytes()),
        ),
    );
    out.push(("unknown-label-7bit".into(), raw, Options::default(), text));
    // KOI8-R with --8bit: written as 8bit, every charset is.
    let b = "------------ABCdef123456";
    let text = format!("Привет, вот текст:\r\n--{b}--\r\nспасибо\r\n");
    let koi8 = encoding_rs::KOI8_R.encode(&text).0.into_owned();
    let raw = with_attachment(
        b,
        &text_part("text/plain; charset=koi8-r", "base64", &b64(&koi8)),
    );
    out.push(("koi8r --8bit".into(), raw, eight, text));
    // The grandparent's delimiter, hidden by a quoted-printable `=2D`,
    // in a multipart/alternative inside the multipart/mixed.
    let text = "Gr\u{fc}\u{df}e,\r\n--outer_boundary_7--\r\nEnde\r\n".to_string();
    let inner = text_part(
        "text/plain; charset=iso-8859-1",
        "quoted-printable",
        b"Gr=FC=DFe,\r\n=2D-outer_boundary_7--\r\nEnde\r\n",
    );
    let nested = [
        b"Content-Type: multipart/alternative; boundary=\"inner42\"\r\n\r\n--inner42\r\n"
            .as_slice(),
        &inner,
        b"\r\n--inner42--\r\n",
    ]
    .concat();
    let raw = with_attachment("outer_boundary_7", &nested);
    out.push((
        "grandparent-qp".into(),
        raw.clone(),
        Options::default(),
        text.clone(),
    ));
    out.push(("grandparent-qp --8bit".into(), raw, eight, text));
    // Through an encapsulated message: the text of a message/rfc822 is
    // inside the outer multipart's body too.
    let text = "Gr\u{fc}\u{df}e,\r\n--outer\r\nContent-Type: text/html\r\n\r\nx\r\n".to_string();
    let inner = [
        b"Content-Type: message/rfc822\r\n\r\nFrom: c@example.invalid\r\nSubject: inner\r\n\
          MIME-Version: 1.0\r\n"
            .as_slice(),
        &text_part(
            "text/plain; charset=iso-8859-1",
            "quoted-printable",
            b"Gr=FC=DFe,\r\n=2D-outer\r\nContent-Type: text/html\r\n\r\nx\r\n",
        ),
    ]
    .concat();
    let raw = with_attachment("outer", &inner);
    out.push(("encapsulated".into(), raw, Options::default(), text));
    // A long line whose quoted-printable soft break falls just before a
    // `--boundary` in it: the continuation line is a delimiter line. At
    // every length around the break.
    for pad in 60..80 {
        let text = format!("\u{e9}{}--soft--\r\n", "x".repeat(pad));
        let latin1 = encoding_rs::WINDOWS_1252.encode(&text).0.into_owned();
        let raw = with_attachment(
            "soft",
            &text_part("text/plain; charset=iso-8859-1", "8bit", &latin1),
        );
        out.push((format!("soft break, {pad}"), raw, Options::default(), text));
    }
    out
}

#[test]
fn regression_a_delimiter_line_in_a_converted_text_is_not_written_bare() {
    let test = "regression_a_delimiter_line_in_a_converted_text_is_not_written_bare";
    for (name, raw, opts, text) in cases() {
        let n = normalize::normalize(&raw, &opts).unwrap();
        assert_eq!(n.report.parts[0].action, Action::Converted, "{name}");
        let out = n.bytes.into_owned();
        let shown = String::from_utf8_lossy(&out);
        // The leaves are the input's: the text, as UTF-8, then the PDF.
        let expected: Vec<Leaf> = vec![
            ("text/plain".into(), None, text.clone().into_bytes()),
            invoice(),
        ];
        let before = leaves(&raw);
        assert_eq!(before.len(), 2, "{name}: the input's leaves");
        assert_eq!(leaves(&out), expected, "{name}:\n{shown}");
        if let Some(read) = python_leaves(test, &out) {
            assert_eq!(read, expected, "{name}: Python reads\n{shown}");
        }
        // It normalizes to itself.
        let again = normalize::normalize(&out, &opts).unwrap();
        assert!(
            matches!(again.bytes, Cow::Borrowed(_)),
            "{name}: not idempotent"
        );
    }
}

/// What is no delimiter line stays as readable as it was: the boundary
/// inside a line, or after white space, leaves quoted-printable (and 7bit)
/// as the choice.
#[test]
fn a_boundary_that_starts_no_line_keeps_the_usual_coding() {
    let b = "frontier";
    for (label, body, cte) in [
        (
            "iso-8859-1",
            format!("Gr\u{fc}\u{df}e, see --{b} in the source\r\n"),
            "quoted-printable",
        ),
        (
            "iso-8859-1",
            format!(" --{b}\r\n\u{e9}\r\n"),
            "quoted-printable",
        ),
        ("x-unknown", format!("-{b}\r\nplain\r\n"), "7bit"),
        // A signature separator starts a line with `--`, but no boundary.
        (
            "iso-8859-1",
            "Vielen Dank f\u{fc}r die Unterlagen, ich melde mich morgen.\r\n-- \r\nHans Meier\r\n"
                .to_string(),
            "quoted-printable",
        ),
    ] {
        let raw = with_attachment(
            b,
            &text_part(
                &format!("text/plain; charset={label}"),
                "8bit",
                &encoding_rs::WINDOWS_1252.encode(&body).0,
            ),
        );
        let out = normalize::normalize(&raw, &Options::default()).unwrap();
        let s = String::from_utf8_lossy(&out.bytes);
        assert!(
            s.contains(&format!("Content-Transfer-Encoding: {cte}\r\n")),
            "{body:?}:\n{s}"
        );
        assert_eq!(leaves(&out.bytes).len(), 2);
    }
}

/// The same through the command line: an mbox, a Maildir and `filter`,
/// with and without `--8bit`; every message read back has its leaves.
#[test]
fn regression_delimiter_lines_through_mbox_maildir_and_filter() {
    use mailcharset::mailbox::MessageReader;
    use std::process::{Command, Stdio};
    let bin = || Command::new(env!("CARGO_BIN_EXE_mailcharset"));
    let tmp = tempfile::tempdir().unwrap();
    let msgs: Vec<(Vec<u8>, String)> = cases()
        .into_iter()
        .filter(|c| !c.0.starts_with("soft") || c.0 == "soft break, 69")
        .map(|(_, raw, _, text)| (raw, text))
        .collect();
    let check = |what: &str, out: &[u8], text: &str| {
        let got = leaves(out);
        assert_eq!(got.len(), 2, "{what}:\n{}", String::from_utf8_lossy(out));
        assert_eq!(got[0].2, text.as_bytes(), "{what}");
        assert_eq!(got[1].2, PDF, "{what}");
    };
    let mut mbox = Vec::new();
    let md = tmp.path().join("md");
    for sub in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(md.join(sub)).unwrap();
    }
    for (k, (raw, _)) in msgs.iter().enumerate() {
        mbox.extend_from_slice(b"From a@example.invalid Tue Mar 10 12:00:00 2009\r\n");
        mbox.extend_from_slice(raw);
        mbox.extend_from_slice(b"\r\n");
        std::fs::write(md.join(format!("cur/{k}.host:2,S")), raw).unwrap();
    }
    let input = tmp.path().join("in.mbox");
    std::fs::write(&input, &mbox).unwrap();
    for opts in [&[][..], &["--8bit"]] {
        let out = tmp.path().join("out.mbox");
        let mdo = tmp.path().join("md.out");
        for (from, to) in [(&input, &out), (&md, &mdo)] {
            let st = bin()
                .args(["normalize", "-q"])
                .args(opts)
                .arg(from)
                .arg("-o")
                .arg(to)
                .status()
                .unwrap();
            assert!(st.success(), "{opts:?}");
        }
        let got: Vec<Vec<u8>> = MessageReader::open_detected(&out)
            .unwrap()
            .map(|m| m.unwrap().bytes)
            .collect();
        assert_eq!(got.len(), msgs.len());
        for (k, ((_, text), m)) in msgs.iter().zip(&got).enumerate() {
            check(&format!("mbox {opts:?} {k}"), m, text);
            let file = std::fs::read(mdo.join(format!("cur/{k}.host:2,S"))).unwrap();
            check(&format!("Maildir {opts:?} {k}"), &file, text);
        }
        std::fs::remove_file(&out).unwrap();
        std::fs::remove_dir_all(&mdo).unwrap();
    }
    for (k, (raw, text)) in msgs.iter().enumerate() {
        let mut child = bin()
            .arg("filter")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let input = raw.clone();
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            stdin.write_all(&input)
        });
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap().unwrap();
        assert!(out.status.success());
        check(&format!("filter {k}"), &out.stdout, text);
    }
}

/// The delimiter of a multipart/alternative that is not the first part of
/// the multipart/mixed around it, in the second text of the alternative:
/// the boundaries looked for are those of every multipart the text lies
/// in, found by where it lies, not by the first or the last part at each
/// level. Written bare, `--inner42--` closed the alternative early and
/// `Ende` fell into its epilogue.
#[test]
fn regression_the_delimiter_of_a_later_nested_multipart_is_not_written_bare() {
    let test = "regression_the_delimiter_of_a_later_nested_multipart_is_not_written_bare";
    let text = "Gr\u{fc}\u{df}e,\r\n--inner42--\r\nEnde\r\n";
    let intro = text_part("text/plain; charset=us-ascii", "7bit", b"See below.\r\n");
    let plain = text_part("text/plain; charset=us-ascii", "7bit", b"Hello\r\n");
    let latin1 = text_part(
        "text/plain; charset=iso-8859-1",
        "quoted-printable",
        b"Gr=FC=DFe,\r\n=2D-inner42--\r\nEnde\r\n",
    );
    let nested = [
        b"Content-Type: multipart/alternative; boundary=\"inner42\"\r\n\r\n--inner42\r\n"
            .as_slice(),
        &plain,
        b"\r\n--inner42\r\n",
        &latin1,
        b"\r\n--inner42--\r\n",
    ]
    .concat();
    let raw = with_attachment(
        "outer9",
        &[intro.as_slice(), b"\r\n--outer9\r\n", &nested].concat(),
    );
    let expected: Vec<Leaf> = vec![
        ("text/plain".into(), None, b"See below.\r\n".to_vec()),
        ("text/plain".into(), None, b"Hello\r\n".to_vec()),
        ("text/plain".into(), None, text.as_bytes().to_vec()),
        invoice(),
    ];
    let before = leaves(&raw);
    assert_eq!(before.len(), 4, "the input's leaves");
    for opts in [
        Options::default(),
        Options {
            eight_bit: true,
            ..Options::default()
        },
    ] {
        let n = normalize::normalize(&raw, &opts).unwrap();
        let out = n.bytes.into_owned();
        let shown = String::from_utf8_lossy(&out);
        assert_eq!(leaves(&out), expected, "{shown}");
        if let Some(read) = python_leaves(test, &out) {
            assert_eq!(read, expected, "Python reads\n{shown}");
        }
    }
}
