//! `mailcharset decode` / `encode` for UTF-8 in its four modes (doc/architecture.md
//! "Command line"), run as a process.

use mailcharset::codec::{extended, utf8};
use std::io::Write;
use std::process::{Command, Output, Stdio};

fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mailcharset"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run mailcharset");
    let mut pipe = child.stdin.take().expect("stdin");
    let input = stdin.to_vec();
    let writer = std::thread::spawn(move || pipe.write_all(&input));
    let out = child.wait_with_output().expect("wait");
    writer.join().expect("join").expect("write stdin");
    out
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn strict_error_names_input_offset_and_kind() {
    let out = run(&["decode", "--mode", "strict"], b"/\xC0\xAE./");
    assert_eq!(out.status.code(), Some(65));
    assert!(out.stdout.is_empty());
    assert_eq!(
        stderr(&out).trim_end(),
        "mailcharset: standard input: offset 1: overlong"
    );

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.txt");
    std::fs::write(&path, b"ok \xF0\x9F\x98").unwrap();
    let p = path.to_str().unwrap();
    let out = run(&["decode", "--mode", "strict", p], b"");
    assert_eq!(out.status.code(), Some(65));
    assert_eq!(
        stderr(&out).trim_end(),
        format!("mailcharset: {p}: offset 3: truncated")
    );

    let out = run(&["decode", "--mode", "strict"], "日本語".as_bytes());
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, "日本語".as_bytes());
}

#[test]
fn lossy_is_the_default_and_matches_the_library() {
    let input = b"a\xF1\x80\x80\xE1\x80\xC2b\x80c\x80\xBFd\xED\xA0\x80";
    let out = run(&["decode"], input);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, utf8::decode_lossy(input).as_bytes());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(input)
    );
    let err = stderr(&out);
    assert!(err.contains("offset 1: truncated"), "{err}");
    assert!(err.contains("offset 13: surrogate"), "{err}");
    assert!(err.contains("9 replacement"), "{err}");
    // Label spelled differently is still plain UTF-8.
    let out = run(&["decode", "--charset", " UTF8 "], input);
    assert_eq!(out.stdout, utf8::decode_lossy(input).as_bytes());
}

#[test]
fn codepoints_format() {
    let out = run(&["decode", "--codepoints"], "A\u{E9}\u{1F600}".as_bytes());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "U+0041 U+00E9 U+1F600\n"
    );
    let out = run(
        &["decode", "--mode", "extended", "--codepoints"],
        &[
            0xFE, 0x82, 0x80, 0x80, 0x80, 0x80, 0x80, 0xED, 0xA0, 0x80, 0x41,
        ],
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "U+80000000 U+D800 U+0041\n"
    );
}

#[test]
fn legacy_values_that_are_not_scalars_become_fffd_counted() {
    // 5-octet 0x200000, a surrogate, and a 4-octet value past 10FFFF.
    let input = [
        0xF8, 0x88, 0x80, 0x80, 0x80, 0xED, 0xA0, 0x80, 0xF5, 0x80, 0x80, 0x80, 0x41,
    ];
    let out = run(&["decode", "--mode", "legacy"], &input);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "\u{FFFD}\u{FFFD}\u{FFFD}A"
    );
    assert!(
        stderr(&out).contains("3 value(s) not Unicode scalar values"),
        "{}",
        stderr(&out)
    );
    // FE is not legacy: a replacement, reported by kind.
    let out = run(
        &["decode", "--mode", "legacy", "--codepoints"],
        &[0xFE, 0x41],
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "U+FFFD U+0041\n");
    assert!(
        stderr(&out).contains("offset 0: invalid-byte"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn encode_codepoints_in_each_mode() {
    let out = run(
        &["encode", "--mode", "extended", "--codepoints"],
        b"U+80000000 U+1000000000\nU+7FFFFFFFFFFFFFFF u+41",
    );
    assert_eq!(out.status.code(), Some(0));
    let want = extended::encode(&[0x8000_0000, 0x10_0000_0000, extended::MAX, 0x41]).unwrap();
    assert_eq!(out.stdout, want);

    let out = run(
        &["encode", "--mode", "legacy", "--codepoints"],
        b"U+7FFFFFFF U+D800",
    );
    assert_eq!(
        out.stdout,
        [0xFD, 0xBF, 0xBF, 0xBF, 0xBF, 0xBF, 0xED, 0xA0, 0x80]
    );

    let out = run(
        &["encode", "--mode", "legacy", "--codepoints"],
        b"U+41 U+80000000",
    );
    assert_eq!(out.status.code(), Some(65));
    assert!(
        stderr(&out).contains("standard input: offset 5:"),
        "{}",
        stderr(&out)
    );

    let out = run(
        &["encode", "--mode", "strict", "--codepoints"],
        b"U+41  U+D800",
    );
    assert_eq!(out.status.code(), Some(65));
    assert!(stderr(&out).contains("offset 6:"), "{}", stderr(&out));

    let out = run(&["encode", "--codepoints"], b"U+41 U+4G");
    assert_eq!(out.status.code(), Some(65));
    assert!(
        stderr(&out).contains("offset 5: bad code point token \"U+4G\""),
        "{}",
        stderr(&out)
    );
}

#[test]
fn encode_decode_round_trip_through_the_cli() {
    let tokens = "U+0000 U+007F U+0080 U+FFFF U+10000 U+10FFFF U+110000 U+7FFFFFFF U+80000000 U+FFFFFFFFF U+1000000000 U+7FFFFFFFFFFFFFFF\n";
    let enc = run(
        &["encode", "--mode", "extended", "--codepoints"],
        tokens.as_bytes(),
    );
    assert_eq!(enc.status.code(), Some(0));
    let dec = run(
        &["decode", "--mode", "extended", "--codepoints"],
        &enc.stdout,
    );
    assert_eq!(String::from_utf8_lossy(&dec.stdout), tokens);
    assert!(dec.stderr.is_empty());
}

#[test]
fn encode_text_strict_rejects_invalid_input() {
    let out = run(&["encode", "--mode", "strict"], b"ab\xFF");
    assert_eq!(out.status.code(), Some(65));
    assert!(
        stderr(&out).contains("offset 2: invalid-byte"),
        "{}",
        stderr(&out)
    );
    let out = run(&["encode", "--mode", "strict"], "żółw".as_bytes());
    assert_eq!(out.stdout, "żółw".as_bytes());
}
