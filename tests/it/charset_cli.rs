//! `mailcharset label` end to end (decode/encode --charset are tested through
//! the library functions they call, in charset_dispatch.rs, until the CLI
//! wiring lands).

use std::process::Command;

fn label(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mailcharset"))
        .arg("label")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
    )
}

#[test]
fn label_json_one_object_per_label() {
    let (code, out) = label(&[
        "--json",
        "ISO-8859-1",
        "3Diso-8859-1",
        "ebcdic-cp-us",
        "no-such-thing",
        "unicode-1-1-utf-8",
    ]);
    assert_eq!(code, 0);
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5);
    // Field order is the documented one.
    let first = out.lines().next().unwrap();
    assert!(first.starts_with("{\"label\":\"ISO-8859-1\",\"charset\":\"ISO-8859-1\",\"status\":\"preferred\",\"mib\":4,\"decoder\":\"windows-1252\""), "{first}");
    assert_eq!(lines[1]["status"], "alias");
    assert_eq!(lines[1]["charset"], "ISO-8859-1");
    assert_eq!(lines[2]["charset"], "IBM037");
    assert_eq!(lines[2]["decoder"], serde_json::Value::Null);
    assert!(
        lines[2]["note"]
            .as_str()
            .unwrap()
            .starts_with("unsupported")
    );
    assert_eq!(lines[3]["charset"], serde_json::Value::Null);
    assert_eq!(lines[3]["status"], "unknown");
    assert_eq!(lines[4]["decoder"], "UNICODE-1-1-UTF-8");
    assert_eq!(lines[4]["status"], "whatwg");
}

#[test]
fn label_text() {
    let (code, out) = label(&["latin1", "bog5", "nope"]);
    assert_eq!(code, 0);
    let l: Vec<&str> = out.lines().collect();
    assert_eq!(
        l,
        [
            "latin1: ISO-8859-1 (registered), MIBenum 4, decoder windows-1252",
            "bog5: Big5 (alias), MIBenum 2026, decoder Big5",
            "nope: unknown (no charset)",
        ]
    );
}

fn decode_cli(args: &[&str], input: &[u8]) -> (i32, Vec<u8>, String) {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mailcharset"))
        .arg("decode")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn strict_us_ascii_rejects_eight_bit_octets() {
    let (code, _, err) = decode_cli(&["--charset", "us-ascii", "--mode", "strict"], b"ab\xe9c");
    assert_eq!(code, 65, "{err}");
    assert!(err.contains("offset 2: invalid-byte in US-ASCII"), "{err}");
    // Lossy keeps the mail policy (a clean windows-1252 reading here).
    let (code, out, _) = decode_cli(&["--charset", "us-ascii"], b"ab\xe9c");
    assert_eq!(code, 0);
    assert_eq!(out, "ab\u{e9}c".as_bytes());
    // Plain ASCII passes strict mode.
    let (code, out, _) = decode_cli(&["--charset", "us-ascii", "--mode", "strict"], b"abc");
    assert_eq!((code, out.as_slice()), (0, &b"abc"[..]));
}
