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

/// The binary run as `command` with `args` in `dir`, `stdin` piped in
/// when given.
fn run(command: &[&str], args: &[&str], stdin: Option<&[u8]>, dir: &Path) -> Output {
    let mut c = bin();
    c.current_dir(dir).args(command).args(args);
    let Some(data) = stdin else {
        return c.output().unwrap();
    };
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

fn audit(args: &[&str], stdin: Option<&[u8]>, dir: &Path) -> Output {
    run(&["audit", "-q", "--format", "jsonl"], args, stdin, dir)
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

fn normalize(args: &[&str], stdin: Option<&[u8]>, dir: &Path) -> Output {
    run(&["normalize", "-q"], args, stdin, dir)
}

/// `gzip -dc` of `data` (the system's gzip as the reader of what we wrote).
fn gunzip(test: &str, data: &[u8]) -> Option<Vec<u8>> {
    common::oracle(test, "gzip", &["-dc"], data)
}

#[test]
fn normalize_writes_a_gzip_mbox_back_compressed_as_the_mbox_it_holds_normalized() {
    let test = "normalize_writes_a_gzip_mbox_back_compressed_as_the_mbox_it_holds_normalized";
    let plain = fixture_mbox();
    let Some(gz) = gzip(test, &plain) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("list.mbox"), &plain).unwrap();
    // Compressed with its name in the header, as `gzip list.mbox` does.
    let named = {
        use std::io::Write;
        let mut e = flate2::GzBuilder::new()
            .filename("list.mbox")
            .mtime(1_104_537_600)
            .write(Vec::new(), flate2::Compression::default());
        e.write_all(&plain).unwrap();
        e.finish().unwrap()
    };
    std::fs::write(d.join("list.mbox.gz"), &gz).unwrap();
    std::fs::create_dir(d.join("archive")).unwrap();
    std::fs::write(d.join("archive/2005-January.txt.gz"), &gz).unwrap();
    let o = normalize(
        &["list.mbox", "-o", "want.mbox", "--report", "want.jsonl"],
        None,
        d,
    );
    assert!(o.status.success(), "{o:?}");
    let want = std::fs::read(d.join("want.mbox")).unwrap();
    assert_ne!(want, plain, "the fixtures have messages to normalize");
    let want_report = std::fs::read_to_string(d.join("want.jsonl")).unwrap();

    // Named, with -o; its report names the compressed file.
    let o = normalize(
        &["list.mbox.gz", "-o", "out.gz", "--report", "r.jsonl"],
        None,
        d,
    );
    assert!(o.status.success(), "{o:?}");
    let out = std::fs::read(d.join("out.gz")).unwrap();
    assert_eq!(gunzip(test, &out).unwrap(), want, "named");
    assert_eq!(
        std::fs::read_to_string(d.join("r.jsonl")).unwrap(),
        want_report.replace("\"input\":\"list.mbox\"", "\"input\":\"list.mbox.gz\""),
    );
    // Piped in, to standard output.
    let o = normalize(&[], Some(&gz), d);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(gunzip(test, &o.stdout).unwrap(), want, "piped");
    // In a folder.
    let o = normalize(&["archive", "-o", "out"], None, d);
    assert!(o.status.success(), "{o:?}");
    let out = std::fs::read(d.join("out/2005-January.txt.gz")).unwrap();
    assert_eq!(gunzip(test, &out).unwrap(), want, "in a folder");
    // In place, the name in its header kept.
    std::fs::write(d.join("named.gz"), &named).unwrap();
    let o = normalize(&["--in-place", "named.gz"], None, d);
    assert!(o.status.success(), "{o:?}");
    let out = std::fs::read(d.join("named.gz")).unwrap();
    assert_eq!(gunzip(test, &out).unwrap(), want, "in place");
    let header = flate2::read::GzDecoder::new(&out[..]);
    let original = flate2::read::GzDecoder::new(&named[..]);
    assert_eq!(
        header.header().and_then(|h| h.filename()),
        original.header().and_then(|h| h.filename()),
    );
    assert!(original.header().and_then(|h| h.filename()).is_some());
    // Normalized once more, nothing changes: the file is kept as it is.
    let o = normalize(&["--in-place", "named.gz"], None, d);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(std::fs::read(d.join("named.gz")).unwrap(), out);
}

#[test]
fn normalize_keeps_a_gzip_file_it_cannot_read_whole_byte_for_byte_and_says_so() {
    let test = "normalize_keeps_a_gzip_file_it_cannot_read_whole_byte_for_byte_and_says_so";
    let mut plain = Vec::new();
    for _ in 0..40 {
        plain.extend_from_slice(&fixture_mbox());
    }
    let Some(gz) = gzip(test, &plain) else {
        return;
    };
    let Some(twice) = gzip(test, &gz) else {
        return;
    };
    let cut = &gz[..gz.len() / 2];
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("archive")).unwrap();
    std::fs::write(d.join("archive/cut.txt.gz"), cut).unwrap();
    std::fs::write(d.join("archive/twice.gz.gz"), &twice).unwrap();
    let o = normalize(&["archive", "-o", "out", "--report", "r.jsonl"], None, d);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(std::fs::read(d.join("out/cut.txt.gz")).unwrap(), cut);
    assert_eq!(std::fs::read(d.join("out/twice.gz.gz")).unwrap(), twice);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("2 gzip-compressed file(s) kept as they were"),
        "{err}"
    );
    let report = std::fs::read_to_string(d.join("r.jsonl")).unwrap();
    for note in [
        "gzip-compressed data cut short after",
        "gzip-compressed twice: kept as it is",
    ] {
        assert!(report.contains(note), "{note}: {report}");
    }
    // Named on its own, in place: the file stays as it was.
    std::fs::write(d.join("cut.gz"), cut).unwrap();
    let o = normalize(&["--in-place", "cut.gz"], None, d);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(std::fs::read(d.join("cut.gz")).unwrap(), cut);
}

/// A message of the fixture mbox that normalize changes, without its
/// envelope line.
fn message_to_normalize(test: &str) -> Option<Vec<u8>> {
    let dir = common::fixtures().join("messages");
    for p in common::files_under(&dir, &|p| p.extension().is_some_and(|e| e == "eml")) {
        let m = std::fs::read(&p).unwrap();
        let o = bin().args(["normalize", "-q"]).arg(&p).output().unwrap();
        if o.status.success() && o.stdout != m && o.stdout.len() > m.len() + 40 {
            return Some(m);
        }
    }
    common::skip(test, "no fixture message that normalize changes");
    None
}

#[test]
fn a_compressed_maildir_message_is_normalized_and_keeps_its_uncompressed_size_tags() {
    // Dovecot's zlib plugin: a Maildir message file may be gzip data, and
    // its `,S=` (and `,W=`) tags must be the size decompressed.
    let test = "a_compressed_maildir_message_is_normalized_and_keeps_its_uncompressed_size_tags";
    let Some(message) = message_to_normalize(test) else {
        return;
    };
    let Some(zmsg) = gzip(test, &message) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for sub in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(d.join("md").join(sub)).unwrap();
        std::fs::create_dir_all(d.join("plain").join(sub)).unwrap();
    }
    let wide = |b: &[u8]| b.len() + memchr::memchr_iter(b'\n', b).count();
    let name = |b: &[u8]| format!("1.host,S={},W={}:2,S", b.len(), wide(b));
    std::fs::write(d.join("md/cur").join(name(&message)), &zmsg).unwrap();
    std::fs::write(d.join("plain/cur").join(name(&message)), &message).unwrap();
    let o = normalize(&["plain", "-o", "plain-out"], None, d);
    assert!(o.status.success(), "{o:?}");
    let want = common::entry_names(&d.join("plain-out/cur"));
    assert_eq!(want.len(), 1);
    let want_bytes = std::fs::read(d.join("plain-out/cur").join(&want[0])).unwrap();
    assert_eq!(want[0], name(&want_bytes), "the plain file's tags");
    for how in ["-o", "--in-place"] {
        let args: Vec<&str> = if how == "-o" {
            vec!["md", "-o", "md-out"]
        } else {
            vec!["--in-place", "md"]
        };
        let o = normalize(&args, None, d);
        assert!(o.status.success(), "{how}: {o:?}");
        let cur = d.join(if how == "-o" { "md-out/cur" } else { "md/cur" });
        let names = common::entry_names(&cur);
        assert_eq!(names, want, "{how}: the tags of the message decompressed");
        let written = std::fs::read(cur.join(&names[0])).unwrap();
        assert!(
            written.starts_with(&[0x1f, 0x8b]),
            "{how}: still compressed"
        );
        assert_eq!(gunzip(test, &written).unwrap(), want_bytes, "{how}");
    }
    // An unchanged compressed message keeps its name (it used to get the
    // tags of its compressed size).
    let o = normalize(&["--in-place", "md"], None, d);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(common::entry_names(&d.join("md/cur")), want);
}

#[test]
fn a_format_forced_on_a_gzip_file_is_a_usage_error_and_the_file_is_untouched() {
    // The format would be the compressed octets': normalize put a line end
    // before them (in place too), audit read them as one binary message.
    let test = "a_format_forced_on_a_gzip_file_is_a_usage_error_and_the_file_is_untouched";
    let Some(gz) = gzip(test, &fixture_mbox()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("list.mbox.gz"), &gz).unwrap();
    for format in ["mboxo", "mboxrd", "content-length", "eml"] {
        let o = normalize(
            &["--input-format", format, "--in-place", "list.mbox.gz"],
            None,
            d,
        );
        assert_eq!(o.status.code(), Some(64), "normalize {format}: {o:?}");
        assert!(
            String::from_utf8_lossy(&o.stderr)
                .contains("gzip-compressed; leave --input-format out")
        );
        assert_eq!(
            std::fs::read(d.join("list.mbox.gz")).unwrap(),
            gz,
            "{format}"
        );
        let o = audit(&["--input-format", format, "list.mbox.gz"], None, d);
        assert_eq!(o.status.code(), Some(64), "audit {format}: {o:?}");
        assert!(o.stdout.is_empty());
    }
}
