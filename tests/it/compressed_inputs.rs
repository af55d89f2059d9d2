//! gzip-compressed inputs (doc/mailbox.md, "Compressed inputs"): `audit`
//! reads a `.gz` mbox or message named on its own, piped in, or found in a
//! folder, and gives the records the decompressed file gives, named by the
//! compressed file; damaged data ends the input where it is damaged, with
//! the messages before it audited and exit 74; `normalize` keeps the file
//! byte for byte and says so. The compressor is the system's `gzip` (an
//! independent implementation; its header carries the file name).

use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::common;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mailcharset"))
}

/// The fixture messages as one mbox (every message starts with its own
/// envelope line; none has a body line starting `From `).
fn fixture_mbox() -> Vec<u8> {
    let dir = common::fixtures().join("messages");
    let mut out = Vec::new();
    for p in common::files_under(&dir, &|p| p.extension().is_some_and(|e| e == "eml")) {
        let m = std::fs::read(&p).unwrap();
        assert!(
            !m.starts_with(b"From ") && memchr::memmem::find(&m, b"\nFrom ").is_none(),
            "{}: the mbox would need quoting",
            p.display()
        );
        out.extend_from_slice(b"From someone@example.org Mon Jan  1 00:00:00 2001\n");
        out.extend_from_slice(&m);
        if !m.ends_with(b"\n") {
            out.push(b'\n');
        }
        out.push(b'\n');
    }
    out
}

/// `gzip -c` of `data`, or None (a skip recorded) without gzip.
fn gzip(test: &str, data: &[u8]) -> Option<Vec<u8>> {
    common::oracle(test, "gzip", &["-c", "-n"], data)
}

fn audit(args: &[&str], stdin: Option<&[u8]>, dir: &Path) -> Output {
    let mut c = bin();
    c.current_dir(dir)
        .args(["audit", "-q", "--format", "jsonl"])
        .args(args);
    match stdin {
        Some(data) => {
            let mut child = c
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let mut sin = child.stdin.take().unwrap();
            let data = data.to_vec();
            let writer = std::thread::spawn(move || {
                use std::io::Write;
                let _ = sin.write_all(&data);
            });
            let out = child.wait_with_output().unwrap();
            writer.join().unwrap();
            out
        }
        None => c.output().unwrap(),
    }
}

/// The records of an audit, each with its input name taken out, as
/// `(input, record)`.
fn records(o: &Output) -> Vec<(String, serde_json::Value)> {
    String::from_utf8(o.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            let input = v["input"].as_str().unwrap().to_string();
            v.as_object_mut().unwrap().remove("input");
            (input, v)
        })
        .collect()
}

fn without_names(r: &[(String, serde_json::Value)]) -> Vec<serde_json::Value> {
    r.iter().map(|(_, v)| v.clone()).collect()
}

#[test]
fn a_gzip_mbox_is_audited_as_the_mbox_it_holds_however_it_comes_in() {
    let test = "a_gzip_mbox_is_audited_as_the_mbox_it_holds_however_it_comes_in";
    let plain = fixture_mbox();
    let Some(gz) = gzip(test, &plain) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("list.mbox"), &plain).unwrap();
    std::fs::write(dir.path().join("list.mbox.gz"), &gz).unwrap();
    std::fs::create_dir(dir.path().join("archive")).unwrap();
    std::fs::write(dir.path().join("archive/2005-January.txt.gz"), &gz).unwrap();

    let want = audit(&["list.mbox"], None, dir.path());
    assert!(want.status.success(), "{want:?}");
    let want = records(&want);
    let messages = want.iter().filter_map(|(_, v)| v["index"].as_u64()).max();
    assert!(
        messages >= Some(30),
        "the fixture mbox has its messages: {messages:?}"
    );

    for (how, args, stdin, name) in [
        ("named", vec!["list.mbox.gz"], None, "list.mbox.gz"),
        ("piped", vec![], Some(&gz[..]), "-"),
        (
            "in a folder",
            vec!["archive"],
            None,
            "archive/2005-January.txt.gz",
        ),
    ] {
        let o = audit(&args, stdin, dir.path());
        assert!(o.status.success(), "{how}: {o:?}");
        let got = records(&o);
        assert_eq!(without_names(&got), without_names(&want), "{how}");
        assert!(got.iter().all(|(n, _)| n == name), "{how}: named {name}");
    }
}

#[test]
fn every_member_of_a_concatenated_gzip_file_is_read() {
    let test = "every_member_of_a_concatenated_gzip_file_is_read";
    let plain = fixture_mbox();
    // Split between two messages, each half compressed on its own
    // (`cat a.gz b.gz`, as rotated logs are joined).
    let cut = memchr::memmem::find_iter(&plain, b"\n\nFrom ")
        .nth(10)
        .unwrap()
        + 2;
    let (Some(mut gz), Some(second)) = (gzip(test, &plain[..cut]), gzip(test, &plain[cut..]))
    else {
        return;
    };
    gz.extend_from_slice(&second);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("list.mbox"), &plain).unwrap();
    std::fs::write(dir.path().join("joined.gz"), &gz).unwrap();
    let want = records(&audit(&["list.mbox"], None, dir.path()));
    let o = audit(&["joined.gz"], None, dir.path());
    assert!(o.status.success(), "{o:?}");
    assert_eq!(without_names(&records(&o)), without_names(&want));
}

#[test]
fn damaged_gzip_data_ends_the_input_there_and_says_so() {
    let test = "damaged_gzip_data_ends_the_input_there_and_says_so";
    // Large enough that half the compressed data holds many messages.
    let mut plain = Vec::new();
    for _ in 0..40 {
        plain.extend_from_slice(&fixture_mbox());
    }
    let Some(gz) = gzip(test, &plain) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("list.mbox"), &plain).unwrap();
    std::fs::write(dir.path().join("cut.gz"), &gz[..gz.len() / 2]).unwrap();
    std::fs::create_dir(dir.path().join("archive")).unwrap();
    std::fs::write(dir.path().join("archive/cut.gz"), &gz[..gz.len() / 2]).unwrap();
    let want = without_names(&records(&audit(&["list.mbox"], None, dir.path())));
    for (how, input) in [("named", "cut.gz"), ("in a folder", "archive")] {
        let o = audit(&[input], None, dir.path());
        assert_eq!(o.status.code(), Some(74), "{how}: {o:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("cut.gz: gzip-compressed data cut short after")
                && err.contains("the rest was not audited"),
            "{how}: {err}"
        );
        let got = without_names(&records(&o));
        // Every message before the cut is audited as in the whole mbox;
        // the one the cut falls in may differ, none after it is there.
        let last = got.last().unwrap()["index"].as_u64().unwrap();
        assert!(last > 100, "{how}: {last} messages before the cut");
        let before: Vec<_> = got
            .iter()
            .filter(|v| v["index"].as_u64() < Some(last))
            .collect();
        assert_eq!(
            before,
            want.iter().take(before.len()).collect::<Vec<_>>(),
            "{how}"
        );
        assert!(want.iter().any(|v| v["index"].as_u64() > Some(last)));
    }
}

#[test]
fn normalize_keeps_a_gzip_file_as_it_is_and_says_so() {
    let test = "normalize_keeps_a_gzip_file_as_it_is_and_says_so";
    let Some(gz) = gzip(test, &fixture_mbox()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("archive")).unwrap();
    std::fs::write(dir.path().join("archive/2005-January.txt.gz"), &gz).unwrap();
    let o = bin()
        .current_dir(dir.path())
        .args([
            "normalize",
            "-q",
            "archive",
            "-o",
            "out",
            "--report",
            "r.jsonl",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    assert_eq!(
        std::fs::read(dir.path().join("out/2005-January.txt.gz")).unwrap(),
        gz
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("1 gzip-compressed file(s) kept as they were"),
        "{err}"
    );
    let report = std::fs::read_to_string(dir.path().join("r.jsonl")).unwrap();
    assert!(
        report.contains("gzip-compressed: kept as it is"),
        "{report}"
    );
}
