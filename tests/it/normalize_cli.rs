//! `mailcharset normalize` over each kind of input: the same container
//! comes out with the same messages in the same order (same names), each
//! message exactly what the library call makes of it; `--report` has one
//! JSON line per message; `--on-error fail` exits 65 naming the message.

use crate::common;

use mailcharset::mailbox::MessageReader;
use mailcharset::normalize::{self, Options};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mailcharset"))
}

/// `mailcharset normalize -q INPUT -o OUTPUT`; whether it succeeded.
fn normalize_to(input: &Path, output: &Path) -> bool {
    bin()
        .args(["normalize", "-q"])
        .arg(input)
        .arg("-o")
        .arg(output)
        .status()
        .unwrap()
        .success()
}

fn fixture_files() -> Vec<PathBuf> {
    let dir = common::fixtures().join("messages");
    common::files_under(&dir, &|p| p.extension().is_some_and(|e| e == "eml"))
}

/// An mboxo of the given message files, each after a From_ line.
fn mbox_of(files: &[PathBuf]) -> Vec<u8> {
    let mut mbox = Vec::new();
    for f in files {
        mbox.extend_from_slice(b"From sender@example.org Tue Mar 10 12:00:00 2009\n");
        mbox.extend_from_slice(&std::fs::read(f).unwrap());
        mbox.extend_from_slice(b"\n");
    }
    mbox
}

fn lib(raw: &[u8]) -> Vec<u8> {
    normalize::normalize(raw, &Options::default())
        .unwrap()
        .bytes
        .into_owned()
}

fn read_all(path: &Path) -> Vec<Vec<u8>> {
    MessageReader::open_detected(path)
        .unwrap()
        .map(|m| m.unwrap().bytes)
        .collect()
}

#[test]
fn mbox_in_mbox_out_same_messages_same_order() {
    let tmp = tempfile::tempdir().unwrap();
    let inputs: Vec<Vec<u8>> = fixture_files()
        .iter()
        .map(|f| std::fs::read(f).unwrap())
        .collect();
    let mbox = mbox_of(&fixture_files());
    let input = tmp.path().join("in.mbox");
    std::fs::write(&input, &mbox).unwrap();
    let output = tmp.path().join("out.mbox");
    let report = tmp.path().join("report.jsonl");
    let st = bin()
        .args(["normalize", "-q"])
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .arg("--report")
        .arg(&report)
        .status()
        .unwrap();
    assert!(st.success());
    let got = read_all(&output);
    let want: Vec<Vec<u8>> = read_all(&input).iter().map(|m| lib(m)).collect();
    assert_eq!(got.len(), inputs.len());
    assert!(got == want, "mbox output differs from the library call");
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&report)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), inputs.len());
    for (k, l) in lines.iter().enumerate() {
        assert_eq!(l["index"], k);
        assert_eq!(l["input"], input.display().to_string());
        assert!(l["changed"].is_boolean() && l["parts"].is_array());
    }
    assert!(lines.iter().any(|l| l["changed"] == true));
    // The same mbox on stdout when no -o is given.
    let out = bin()
        .args(["normalize", "-q"])
        .arg(&input)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout, std::fs::read(&output).unwrap());
}

#[test]
fn folder_and_maildir_keep_names() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = common::fixtures().join("messages");
    let out = tmp.path().join("out");
    let st = bin()
        .args(["normalize", "-q"])
        .arg(&folder)
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success());
    for f in fixture_files() {
        let name = f.file_name().unwrap();
        let got = std::fs::read(out.join(name)).unwrap();
        assert_eq!(got, lib(&std::fs::read(&f).unwrap()), "{}", f.display());
    }
    // Maildir: cur/ and new/ names (with flags) kept.
    let md = tmp.path().join("Maildir");
    for sub in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(md.join(sub)).unwrap();
    }
    let a = std::fs::read(common::fixtures().join("messages/koi8r-base64.eml")).unwrap();
    let b = std::fs::read(common::fixtures().join("messages/clean-utf8.eml")).unwrap();
    std::fs::write(md.join("cur/1234.host:2,S"), &a).unwrap();
    std::fs::write(md.join("new/5678.host"), &b).unwrap();
    let mo = tmp.path().join("MaildirOut");
    let st = bin()
        .args(["normalize", "-q"])
        .arg(&md)
        .arg("-o")
        .arg(&mo)
        .status()
        .unwrap();
    assert!(st.success());
    assert_eq!(
        std::fs::read(mo.join("cur/1234.host:2,S")).unwrap(),
        lib(&a)
    );
    assert_eq!(std::fs::read(mo.join("new/5678.host")).unwrap(), b);
    // A Maildir needs -o.
    let st = bin()
        .args(["normalize", "-q"])
        .arg(&md)
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(st.code(), Some(64));
}

#[test]
fn stdin_to_stdout_and_on_error_fail() {
    let raw = std::fs::read(common::fixtures().join("messages/latin1-qp.eml")).unwrap();
    let mut child = bin()
        .args(["normalize", "-q", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(&raw).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout, lib(&raw));
    // `-o -` is standard output too (it wrote a file named `-`), for
    // normalize and audit alike; run where a file `-` would land.
    let dir = tempfile::tempdir().unwrap();
    let msg = common::fixtures().join("messages/latin1-qp.eml");
    let out = bin()
        .current_dir(dir.path())
        .args(["normalize", "-q", "-o", "-"])
        .arg(&msg)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout, lib(&raw));
    let out = bin()
        .current_dir(dir.path())
        .args(["audit", "--format", "jsonl", "-o", "-"])
        .arg(&msg)
        .output()
        .unwrap();
    assert!(out.status.success() && out.stdout.starts_with(b"{\"input\""));
    assert!(!dir.path().join("-").exists());

    let bad = common::fixtures().join("messages/unknown-label.eml");
    let out = bin()
        .args(["normalize", "-q", "--on-error", "fail"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(65));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown-label.eml") && err.contains("message 0") && err.contains("part 1"),
        "{err}"
    );
    // keep: the message comes out byte for byte.
    let out = bin()
        .args(["normalize", "-q", "--on-error", "keep"])
        .arg(&bad)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout, std::fs::read(&bad).unwrap());
}

/// `--on-error fail` stops reading at the failing message; the output
/// would be short, so it replaces nothing: an existing output keeps its
/// bytes, and in place the input (and no backup) is all there is.
/// (It used to commit the short archive, in place too.)
#[test]
fn regression_on_error_fail_replaces_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let files = fixture_files();
    let bad = common::fixtures().join("messages/unknown-label.eml");
    // The failing message second, then many more.
    let mut order = vec![files[0].clone(), bad];
    for _ in 0..200 {
        order.extend(files.iter().cloned());
    }
    let mbox = mbox_of(&order);
    let input = tmp.path().join("in.mbox");
    std::fs::write(&input, &mbox).unwrap();
    let out = tmp.path().join("out.mbox");
    std::fs::write(&out, b"the previous output\n").unwrap();
    let fail = |args: &[&str]| {
        let o = bin()
            .args(["normalize", "-q", "--on-error", "fail"])
            .args(args)
            .arg(&input)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(65));
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let err = fail(&["-o", out.to_str().unwrap()]);
    assert!(
        err.contains("message 1") && err.contains("no output written"),
        "{err}"
    );
    assert!(
        std::fs::read(&out).unwrap() == b"the previous output\n",
        "the previous output was replaced"
    );
    let err = fail(&["--in-place"]);
    assert!(err.contains("the input is unchanged"), "{err}");
    assert!(
        std::fs::read(&input).unwrap() == mbox,
        "the input was changed"
    );
    assert_eq!(
        common::entry_names(tmp.path()),
        ["in.mbox", "out.mbox"],
        "no backup, no temporary left"
    );

    // A folder in place: files are replaced one by one, so the message
    // says what happened, and every file is whole (original or normalized).
    let folder = tmp.path().join("folder");
    std::fs::create_dir(&folder).unwrap();
    let good = common::fixtures().join("messages/latin1-qp.eml");
    std::fs::copy(&good, folder.join("a.eml")).unwrap();
    std::fs::copy(
        common::fixtures().join("messages/unknown-label.eml"),
        folder.join("b.eml"),
    )
    .unwrap();
    let o = bin()
        .args(["normalize", "-q", "--on-error", "fail", "--in-place"])
        .arg(&folder)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(65));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("one file at a time"), "{err}");
    let a = std::fs::read(folder.join("a.eml")).unwrap();
    assert!(a == std::fs::read(&good).unwrap() || a == lib(&std::fs::read(&good).unwrap()));
    assert_eq!(common::entry_names(&folder), ["a.eml", "b.eml"]);
}

#[test]
fn in_place_equals_output_and_input_format_overrides_detection() {
    let tmp = tempfile::tempdir().unwrap();
    let mbox = mbox_of(&fixture_files());
    let (a, orig, b) = (
        tmp.path().join("a.mbox"),
        tmp.path().join("orig.mbox"),
        tmp.path().join("b.mbox"),
    );
    std::fs::write(&a, &mbox).unwrap();
    std::fs::write(&orig, &mbox).unwrap();
    let run = |args: &[&std::ffi::OsStr]| bin().args(args).status().unwrap();
    assert!(
        run(&[
            "normalize".as_ref(),
            "-q".as_ref(),
            "--in-place".as_ref(),
            a.as_os_str()
        ])
        .success()
    );
    assert!(
        run(&[
            "normalize".as_ref(),
            "-q".as_ref(),
            orig.as_os_str(),
            "-o".as_ref(),
            b.as_os_str()
        ])
        .success()
    );
    let (after, expected) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert_eq!(after, expected, "--in-place writes what -o writes");
    assert_ne!(after, mbox, "something was converted");
    assert_eq!(
        std::fs::read(&orig).unwrap(),
        mbox,
        "-o leaves the input alone"
    );
    let leftovers: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".mbox"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "no backup or temp file left: {leftovers:?}"
    );
    // --in-place on standard input is a usage error.
    let st = bin()
        .args(["normalize", "--in-place", "-"])
        .stdin(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(st.code(), Some(64));
    // --input-format eml reads the whole mbox as one message (detection
    // would have found 34).
    let out = bin()
        .args(["normalize", "--input-format", "eml"])
        .arg(&orig)
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(": 1 messages in, 1 out"), "{stderr}");
    let out = bin().args(["normalize"]).arg(&orig).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let n = fixture_files().len();
    assert!(
        stderr.contains(&format!(": {n} messages in, {n} out")),
        "{stderr}"
    );
}

/// A file of a folder that is clearly an mbox (a later envelope line after
/// an empty line) is normalized as an mbox, message by message, and
/// written back as one: the same as normalizing it given as an input. A
/// single message is the library's output for it.
#[test]
fn an_mbox_inside_a_folder_is_normalized_as_an_mbox() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("in");
    std::fs::create_dir(&folder).unwrap();
    let mbox = mbox_of(&fixture_files());
    std::fs::write(folder.join("archive.mbox"), &mbox).unwrap();
    let single = std::fs::read(common::fixtures().join("messages/koi8r-base64.eml")).unwrap();
    std::fs::write(folder.join("one.eml"), &single).unwrap();
    let out = tmp.path().join("out");
    let report = tmp.path().join("report.jsonl");
    let st = bin()
        .args(["normalize", "-q"])
        .arg(&folder)
        .arg("-o")
        .arg(&out)
        .arg("--report")
        .arg(&report)
        .status()
        .unwrap();
    assert!(st.success());
    // The same as normalizing the mbox on its own ...
    let direct = tmp.path().join("direct.mbox");
    let st = bin()
        .args(["normalize", "-q"])
        .arg(folder.join("archive.mbox"))
        .arg("-o")
        .arg(&direct)
        .status()
        .unwrap();
    assert!(st.success());
    let got = std::fs::read(out.join("archive.mbox")).unwrap();
    assert_eq!(got, std::fs::read(&direct).unwrap());
    assert_ne!(got, lib(&mbox), "not normalized as one message");
    assert_eq!(
        read_all(&out.join("archive.mbox")).len(),
        fixture_files().len()
    );
    // ... and the single message as the library writes it.
    assert_eq!(std::fs::read(out.join("one.eml")).unwrap(), lib(&single));
    // A report line for every message, those of the mbox named by it.
    let text = std::fs::read_to_string(&report).unwrap();
    assert_eq!(text.lines().count(), fixture_files().len() + 1, "{text}");
    let in_mbox = folder.join("archive.mbox").display().to_string();
    let last = fixture_files().len() - 1;
    assert!(text.contains(&format!(
        "{}:{},\"index\":{last}",
        serde_json::to_string("input").unwrap(),
        serde_json::to_string(&in_mbox).unwrap()
    )));
}

/// Regression: outputs took the owner-only mode of their temporary file.
#[cfg(unix)]
#[test]
fn regression_outputs_do_not_inherit_the_temporary_files_mode() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let msg = std::fs::read(common::fixtures().join("messages/koi8r-base64.eml")).unwrap();
    let input = tmp.path().join("in.eml");
    std::fs::write(&input, &msg).unwrap();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    // A new output: what a plain create gives (0666 less the umask), i.e.
    // the same mode as a file this test creates.
    let out = tmp.path().join("out.eml");
    assert!(normalize_to(&input, &out));
    assert_eq!(mode(&out), mode(&input));
    // In place: the input's own mode is kept.
    std::fs::set_permissions(&input, std::fs::Permissions::from_mode(0o640)).unwrap();
    assert!(
        bin()
            .args(["normalize", "-q", "--in-place"])
            .arg(&input)
            .status()
            .unwrap()
            .success()
    );
    assert_eq!(mode(&input), 0o640);
    assert_ne!(std::fs::read(&input).unwrap(), msg, "it was converted");
    // A folder output is not owner-only either.
    let dir_in = tmp.path().join("dir");
    std::fs::create_dir(&dir_in).unwrap();
    std::fs::write(dir_in.join("a.eml"), &msg).unwrap();
    let dir_out = tmp.path().join("dir-out");
    assert!(normalize_to(&dir_in, &dir_out));
    assert_eq!(mode(&dir_out), mode(&dir_in));
}

/// Regression: `-o /dev/null` renamed a regular file over the device (as
/// root, that replaced /dev/null). An output that is not a regular file is
/// written straight into; a FIFO stands in for the device here.
#[cfg(unix)]
#[test]
fn regression_an_output_that_is_a_device_or_fifo_is_written_into_not_replaced() {
    use std::io::Read;
    use std::os::unix::fs::FileTypeExt;
    let tmp = tempfile::tempdir().unwrap();
    let msg = std::fs::read(common::fixtures().join("messages/koi8r-base64.eml")).unwrap();
    let input = tmp.path().join("in.mbox");
    std::fs::write(&input, mbox_of(&fixture_files())).unwrap();
    let fifo = tmp.path().join("out.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        common::skip(
            "regression_an_output_that_is_a_device_or_fifo_is_written_into_not_replaced",
            "mkfifo unavailable; FIFO output not tested",
        );
        return;
    }
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut got = Vec::new();
            std::fs::File::open(&fifo)
                .unwrap()
                .read_to_end(&mut got)
                .unwrap();
            got
        })
    };
    let ok = normalize_to(&input, &fifo);
    // Checked before joining: a replaced FIFO never sees a writer, and its
    // reader would wait forever.
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo(),
        "the FIFO is still a FIFO"
    );
    assert!(ok);
    let got = reader.join().unwrap();
    // What went through the FIFO is what a regular file output holds.
    let file_out = tmp.path().join("out.mbox");
    assert!(normalize_to(&input, &file_out));
    assert_eq!(got, std::fs::read(&file_out).unwrap());

    // A symbolic link as output: the file it points to is replaced, and the
    // link stays a link.
    let target = tmp.path().join("target.eml");
    std::fs::write(&target, b"old").unwrap();
    let link = tmp.path().join("link.eml");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let one = tmp.path().join("one.eml");
    std::fs::write(&one, &msg).unwrap();
    assert!(normalize_to(&one, &link));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read(&target).unwrap(), lib(&msg));
}
