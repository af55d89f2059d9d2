//! `mailcharset audit`: formats, ordering with --jobs, -o, --fail-on exit
//! codes, folder handling, and a snapshot of `--format jsonl` over the
//! fixtures.

use std::process::{Command, Output};

fn audit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mailcharset"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("audit")
        .arg("-q")
        .args(args)
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

const MSGS: &str = "fixtures/messages";

#[test]
fn jsonl_over_fixtures_snapshot() {
    let o = audit(&["--format", "jsonl", "fixtures"]);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    // Every line is a record with the contract's fields.
    let mut n = 0;
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        for k in [
            "input",
            "index",
            "message_id",
            "part",
            "location",
            "label",
            "charset",
            "status",
            "verdict",
            "detected",
            "findings",
        ] {
            assert!(v.get(k).is_some(), "{k} missing in {line}");
        }
        n += 1;
    }
    assert!(n > 40, "{n} records");
    // The mboxes in fixtures/mailbox are clearly mboxes (envelope lines
    // after empty lines): read as mboxes, as normalize reads them (index
    // counts up).
    assert!(text.contains("\"input\":\"fixtures/mailbox/mboxo.mbox\",\"index\":1"));
    assert!(!text.contains("EXPECT.tsv"));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("EXPECT.tsv (does not start like a message)")
    );
    insta::assert_snapshot!("audit_fixtures_jsonl", text);
}

#[test]
fn json_is_the_jsonl_records_as_one_array() {
    let jsonl = stdout(&audit(&["--format", "jsonl", MSGS]));
    let json = stdout(&audit(&["--format", "json", MSGS]));
    let lines: Vec<serde_json::Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let arr: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(serde_json::Value::Array(lines), arr);
}

#[test]
fn jobs_do_not_change_the_output() {
    let one = audit(&["--format", "jsonl", "--jobs", "1", MSGS]);
    let two = audit(&["--format", "jsonl", "--jobs", "2", MSGS]);
    assert_eq!(one.stdout, two.stdout);
}

#[test]
fn csv_has_one_row_per_finding() {
    let jsonl = stdout(&audit(&["--format", "jsonl", MSGS]));
    let findings: usize = jsonl
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["findings"].as_array().unwrap().len()
        })
        .sum();
    let csv = stdout(&audit(&["--format", "csv", MSGS]));
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some(mailcharset::audit::CSV_HEADER));
    // No field of the fixtures' records holds a line break.
    assert_eq!(lines.count(), findings);
    assert!(csv.contains(",overlong,3,1"));
}

#[test]
fn table_is_a_summary() {
    let t = stdout(&audit(&[MSGS]));
    let first = t.lines().next().unwrap();
    assert!(
        first.ends_with("labelled pieces of text") && first.contains(" messages, "),
        "{first}"
    );
    for needle in [
        "unicode-1-1-utf-8",
        "koi8-r",
        "surrogate-pair",
        "possible-old-hangul",
        "worst messages:",
        "dangerous forms (4 findings):",
        "param:filename  overlong: overlong forms spell '.': path traversal attempt",
        "cesu8@fixtures.mailcharset.invalid",
    ] {
        assert!(t.contains(needle), "{needle} missing in\n{t}");
    }
}

#[test]
fn output_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("a.jsonl");
    let o = audit(&[
        "--format",
        "jsonl",
        "-o",
        out.to_str().unwrap(),
        "fixtures/messages/cesu8.eml",
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stdout.is_empty());
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("\"kind\":\"surrogate-pair\""));
}

#[test]
fn fail_on_exit_codes() {
    let code = |level: &str, file: &str| {
        audit(&["--format", "jsonl", "--fail-on", level, file])
            .status
            .code()
    };
    let cesu = "fixtures/messages/cesu8.eml";
    let c1 = "fixtures/messages/c1-in-latin1.eml";
    let mis = "fixtures/messages/mislabeled-1252-as-utf8.eml";
    let clean = "fixtures/messages/cesu8.clean.eml";
    assert_eq!(code("invalid", cesu), Some(1));
    assert_eq!(code("invalid", c1), Some(0));
    assert_eq!(code("invalid", mis), Some(0));
    assert_eq!(code("mislabeled", mis), Some(1));
    assert_eq!(code("mislabeled", c1), Some(0));
    assert_eq!(code("suspicious", c1), Some(1));
    for level in ["invalid", "mislabeled", "suspicious"] {
        assert_eq!(code(level, clean), Some(0), "{level}");
    }
    // Without --fail-on, findings do not change the exit status.
    assert_eq!(audit(&[cesu]).status.code(), Some(0));
    // A missing input is 66.
    assert_eq!(audit(&["no/such/file.eml"]).status.code(), Some(66));
}

#[test]
fn stdin_is_read_when_no_input_is_given() {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_mailcharset"))
        .args(["audit", "-q", "--format", "jsonl"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(
            b"Subject: hi\nContent-Type: text/plain; charset=koi8-r\n\n\xf0\xd2\xc9\xd7\xc5\xd4\n",
        )
        .unwrap();
    let o = child.wait_with_output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["input"], "-");
    assert_eq!(v["label"], "koi8-r");
    assert_eq!(v["verdict"], "ok");
}

#[test]
fn audit_reads_the_input_format_given_as_normalize_does() {
    // An mbox whose first message lacks its envelope line is one message
    // when detected (doc/mailbox.md); `--input-format mboxo` reads it as
    // the mbox it is. audit did not look at the option: one message where
    // normalize read four.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("glued.mbox");
    let mut data =
        b"Subject: first\nContent-Type: text/plain; charset=iso-8859-1\n\ncaf\xe9\n\n".to_vec();
    for i in 0..3 {
        data.extend_from_slice(
            format!(
                "From a@b.example Mon Jan  1 00:00:0{i} 2001\nSubject: m{i}\n\
                 Content-Type: text/plain; charset=koi8-r\n\n"
            )
            .as_bytes(),
        );
        data.extend_from_slice(b"\xf0\xd2\xc9\xd7\xc5\xd4\n\n");
    }
    std::fs::write(&p, &data).unwrap();
    let path = p.to_str().unwrap();
    let count = |o: &Output| {
        let recs: std::collections::BTreeSet<u64> = stdout(o)
            .lines()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["index"]
                    .as_u64()
                    .unwrap()
            })
            .collect();
        recs.len()
    };
    let detected = audit(&["--format", "jsonl", path]);
    assert!(detected.status.success(), "{detected:?}");
    assert_eq!(count(&detected), 1);
    let report = dir.path().join("r.jsonl");
    let n = Command::new(env!("CARGO_BIN_EXE_mailcharset"))
        .args(["normalize", "-q", "--input-format", "mboxo", path, "-o"])
        .arg(dir.path().join("out.mbox"))
        .arg("--report")
        .arg(&report)
        .output()
        .unwrap();
    assert!(n.status.success(), "{n:?}");
    let normalized = std::fs::read_to_string(&report).unwrap().lines().count();
    assert_eq!(normalized, 4);
    let forced = audit(&["--format", "jsonl", "--input-format", "mboxo", path]);
    assert!(forced.status.success(), "{forced:?}");
    assert_eq!(count(&forced), normalized);
    // Standard input with the format given, too.
    let mut child = Command::new(env!("CARGO_BIN_EXE_mailcharset"))
        .args([
            "audit",
            "-q",
            "--format",
            "jsonl",
            "--input-format",
            "mboxo",
            "-",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(&data).unwrap();
    }
    let piped = child.wait_with_output().unwrap();
    assert!(piped.status.success(), "{piped:?}");
    assert_eq!(count(&piped), normalized);
}
