//! `mailcharset filter` never loses mail: any input comes out normalized or
//! unchanged, with exit 0 and one line on stderr.

use std::io::Write;
use std::process::{Command, Stdio};

fn filter(input: &[u8], args: &[&str]) -> (i32, Vec<u8>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mailcharset"))
        .arg("filter")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run mailcharset");
    let mut stdin = child.stdin.take().unwrap();
    let data = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    (
        out.status.code().unwrap_or(-1),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Exit 0, one stderr line, and the output is the input or a normalization
/// of it that is itself stable (filtering it again changes nothing).
fn check(name: &str, input: &[u8]) -> Vec<u8> {
    let (code, out, err) = filter(input, &[]);
    assert_eq!(code, 0, "{name}: {err}");
    assert_eq!(err.lines().count(), 1, "{name}: {err}");
    assert!(err.starts_with("mailcharset filter: "), "{name}: {err}");
    if out != input {
        assert!(err.contains("normalized"), "{name}: {err}");
        let (code, again, _) = filter(&out, &[]);
        assert_eq!(code, 0);
        assert_eq!(again, out, "{name}: not stable");
    } else {
        assert!(
            err.contains("unchanged") || err.contains("kept"),
            "{name}: {err}"
        );
    }
    out
}

fn junk(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

#[test]
fn empty_garbage_and_binary_junk_pass_through() {
    assert_eq!(check("empty", b""), b"");
    check("garbage", b"\xff\xfe not a message at all\r\n\0\0\x80");
    for seed in 1..6 {
        check("junk", &junk(20_000, seed));
    }
    // Junk after a plausible header.
    let mut m = b"Content-Type: text/plain; charset=koi8-r\n\n".to_vec();
    m.extend(junk(5_000, 9));
    // Random octets hold NULs and controls: not text, kept byte for byte.
    let out = check("koi8-r junk", &m);
    assert_eq!(out, m);
}

#[test]
fn five_megabyte_header_line() {
    let mut m = b"Subject: ".to_vec();
    m.extend(std::iter::repeat_n(b'a', 5 << 20));
    m.extend_from_slice(b"\nContent-Type: text/plain; charset=iso-8859-1\n\ncaf\xe9\n");
    let out = check("5 MB header line", &m);
    // The header block is over the limit: fields kept as written; the
    // body is still converted.
    assert!(out.starts_with(&m[..1000]));
    assert!(out.ends_with(b"caf=C3=A9\n") || out.ends_with(b"Y2Fmw6kK\n"));
}

#[test]
fn two_thousand_deep_nesting() {
    let depth = 2000;
    let mut m = Vec::new();
    for k in 0..depth {
        m.extend_from_slice(
            format!("Content-Type: multipart/mixed; boundary=\"b{k}\"\n\n--b{k}\n").as_bytes(),
        );
    }
    m.extend_from_slice(b"Content-Type: text/plain; charset=iso-8859-1\n\ncaf\xe9\n");
    for k in (0..depth).rev() {
        m.extend_from_slice(format!("--b{k}--\n").as_bytes());
    }
    let out = check("2000-deep", &m);
    // Beyond the depth limit the part is kept whole: nothing lost.
    assert_eq!(out, m);
}

#[test]
fn a_message_is_normalized_and_the_line_says_so() {
    let m = b"Subject: =?iso-8859-1?q?caf=E9?=\nContent-Type: text/plain; charset=iso-8859-1\nContent-Transfer-Encoding: 8bit\n\ncaf\xe9 au lait, s'il vous pla\xeet, et un croissant.\n";
    let (code, out, err) = filter(m, &[]);
    assert_eq!(code, 0);
    assert_eq!(
        err.trim(),
        "mailcharset filter: normalized (2 parts converted)"
    );
    let text = String::from_utf8(out).unwrap();
    assert!(text.starts_with("Subject: =?UTF-8?"), "{text}");
    let (_, out8, _) = filter(m, &["--headers", "utf8"]);
    assert!(
        String::from_utf8(out8)
            .unwrap()
            .starts_with("Subject: café\n")
    );
}

#[test]
fn closed_stdout_is_a_temporary_failure() {
    // stdout closed before anything is written: EX_TEMPFAIL (75), so the
    // MTA keeps the message and retries.
    let mut child = Command::new(env!("CARGO_BIN_EXE_mailcharset"))
        .arg("filter")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    let _ = stdin.write_all(&vec![b'x'; 1 << 20]);
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(75));
}

/// The gateway writes what `normalize` writes for a header that ends
/// without its empty line (the empty line written, the text converted),
/// and for header lines that are not fields but stay header (a broken
/// fold, `>From `): byte for byte, and its output is stable.
#[test]
fn a_header_without_empty_line_is_written_as_normalize_writes_it() {
    let inputs: [&[u8]; 4] = [
        b"Content-Type: multipart/mixed; boundary=BND\n\n--BND\n\
          Gr\xfc\xdfe aus K\xf6ln, bis morgen.\nSecond line.\n--BND\n\
          Content-Type: text/plain; charset=iso-8859-1\nCaf\xe9.\n--BND--\n",
        b"From: a@example.org\r\nSubject: x\r\nCaf\xe9 au lait, merci.\r\n",
        b"Subject: a long subject\nwrapped without white space\n\
          Content-Type: text/plain; charset=iso-8859-1\n\nCaf\xe9 au lait.\n",
        b"Content-Type: message/rfc822\n\n>From a@b Mon Jan  1 00:00:00 2001\n\
          Subject: saved\nContent-Type: text/plain; charset=koi8-r\n\n\xf0\xd2\xc9\xd7\xc5\xd4\n",
    ];
    for input in inputs {
        let n = mailcharset::normalize::normalize(input, &Default::default()).unwrap();
        assert!(n.report.changed);
        let out = check("header without empty line", input);
        assert_eq!(
            String::from_utf8_lossy(&out),
            String::from_utf8_lossy(&n.bytes)
        );
    }
}

/// `--keep-dkim-signed`: a DKIM-signed message goes out byte for byte,
/// and the stderr line says why; an unsigned one is normalized.
#[test]
fn keep_dkim_signed_passes_a_signed_message_through() {
    let rest = b"From: a@example.org\nSubject: x\nMIME-Version: 1.0\n\
        Content-Type: text/plain; charset=iso-8859-1\n\nGr\xfc\xdfe aus K\xf6ln\n";
    let signed = [
        &b"DKIM-Signature: v=1; a=rsa-sha256; d=example.org; s=sel; h=from;\n\tbh=AA==; b=AA==\n"[..],
        rest,
    ]
    .concat();
    let (code, out, err) = filter(&signed, &["--keep-dkim-signed"]);
    assert_eq!((code, &out[..]), (0, &signed[..]), "{err}");
    assert!(err.contains("DKIM-signed (1 kept"), "{err}");
    let (code, out, err) = filter(rest, &["--keep-dkim-signed"]);
    assert_eq!(code, 0);
    assert!(out != rest && err.contains("normalized"), "{err}");
}

/// Input whose first line is not a header field goes out byte for byte,
/// as `normalize` keeps it. `filter` read it as a body without a header
/// and put the header/body separator in front: an empty line (CRLF when
/// the input had no line end at all), logged as "normalized (0 parts
/// converted)".
#[test]
fn input_that_does_not_start_like_a_message_is_kept_as_normalize_keeps_it() {
    let inputs: [&[u8]; 5] = [
        b"hello world\nsecond line\n",
        b"\x00\x01binary\xff",
        b"// Not an RFC-822 Document\n",
        b"\r\ncaf\xe9 after an empty first line\r\n",
        b"\xc3\x9cber: a name that starts with an 8-bit octet\n\ncaf\xe9\n",
    ];
    for input in inputs {
        let (code, out, err) = filter(input, &[]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(out, input, "{err}");
        assert!(err.contains("does not start like a message"), "{err}");
        assert_eq!(normalize_stdin(input), input);
    }
}

/// `mailcharset normalize -` with `input` on standard input: its output.
fn normalize_stdin(input: &[u8]) -> Vec<u8> {
    normalize_output(&["-"], Some(input)).0
}

/// `mailcharset normalize ARGS`, with `stdin` when given: its output and
/// its stderr.
fn normalize_output(args: &[&str], stdin: Option<&[u8]>) -> (Vec<u8>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mailcharset"))
        .arg("normalize")
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run mailcharset");
    let writer = child.stdin.take().map(|mut w| {
        let data = stdin.unwrap_or_default().to_vec();
        std::thread::spawn(move || {
            let _ = w.write_all(&data);
        })
    });
    let out = child.wait_with_output().unwrap();
    if let Some(w) = writer {
        w.join().unwrap();
    }
    (
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// doc/gateway.md: `filter` normalizes exactly as `normalize` does. For
/// every file under `../shared/corpus` (mail, mboxes, Maildir stubs and
/// what is not mail: charset tables, READMEs, licences), `filter < f` is
/// `normalize - < f` byte for byte. One exception, by contract: a file
/// `normalize -` reads as an mbox of several messages (its stderr says
/// "N messages in", N > 1) is one message to `filter` (an MTA pipe
/// carries one); for those, `filter < f` is `normalize --input-format eml
/// f`, the file read as one message.
#[test]
fn filter_writes_what_normalize_writes_for_every_corpus_file() {
    let test = "filter_writes_what_normalize_writes_for_every_corpus_file";
    let Some(corpus) = crate::common::corpus(test) else {
        return;
    };
    let files = crate::common::files_under(&corpus, &|_| true);
    assert!(files.len() > 5000, "corpus files found: {}", files.len());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let differ = std::sync::Mutex::new(Vec::new());
    let mboxes = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().min(8));
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(f) = files.get(i) else { break };
                    let raw = std::fs::read(f).unwrap();
                    let (code, filtered, err) = filter(&raw, &[]);
                    assert_eq!(code, 0, "{}: {err}", f.display());
                    let (normalized, note) = normalize_output(&["-"], Some(&raw));
                    if filtered == normalized {
                        continue;
                    }
                    // "mailcharset normalize: standard input: 4 messages in, ..."
                    let messages = note
                        .split_once(" messages in,")
                        .and_then(|(before, _)| before.rsplit(' ').next())
                        .and_then(|n| n.parse::<usize>().ok())
                        .unwrap_or(0);
                    if messages > 1 {
                        mboxes.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let path = f.to_string_lossy();
                        let (one, _) = normalize_output(&["--input-format", "eml", &path], None);
                        if filtered == one {
                            continue;
                        }
                    }
                    differ.lock().unwrap().push(f.display().to_string());
                }
            });
        }
    });
    let differ = differ.into_inner().unwrap();
    eprintln!(
        "{test}: {} files, {} mboxes of several messages compared as one message",
        files.len(),
        mboxes.into_inner()
    );
    assert!(
        differ.is_empty(),
        "filter and normalize differ on {} file(s):\n{}",
        differ.len(),
        differ.join("\n")
    );
}
