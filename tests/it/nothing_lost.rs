//! Issue 14, "Nothing lost, whatever the input": each test pins a way the
//! ordinary paths around the crash-safe machinery used to lose or hide
//! mail (pipes, name clashes, a user's backup, nested Maildirs, vanished
//! files, the filter's exit codes, full disks).

use mailcharset::mailbox::{self, MaildirReader, SkipReason};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_mailcharset")
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/messages")
        .join(name)
}

fn run(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(bin())
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

fn os<S: AsRef<std::ffi::OsStr> + ?Sized>(s: &S) -> &std::ffi::OsStr {
    s.as_ref()
}

/// An mbox of the fixture messages, several times over (some KiB past the
/// 64 KiB the format is sniffed on).
fn mbox(dir: &Path) -> PathBuf {
    let mut out = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(fixture(""))
        .expect("fixtures")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "eml"))
        .collect();
    names.sort();
    for round in 0..12 {
        for p in &names {
            let m = std::fs::read(p).expect("read");
            out.extend_from_slice(format!("From sender@example.com {round}\n").as_bytes());
            mailbox::quote_from_lines(&m, mailbox::MboxFormat::Mboxrd, &mut out);
            if !out.ends_with(b"\n") {
                out.push(b'\n');
            }
            out.push(b'\n');
        }
    }
    assert!(out.len() > 100 << 10, "past the sniffing window");
    let p = dir.join("in.mbox");
    std::fs::write(&p, out).expect("write");
    p
}

/// A named FIFO fed with `bytes` by a thread.
fn fifo(dir: &Path, name: &str, bytes: Vec<u8>) -> (PathBuf, std::thread::JoinHandle<()>) {
    let p = dir.join(name);
    let ok = Command::new("mkfifo")
        .arg(&p)
        .status()
        .expect("mkfifo runs");
    assert!(ok.success());
    let q = p.clone();
    let t = std::thread::spawn(move || {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .open(&q)
            .expect("open fifo");
        // The reader may stop early on an error: a broken pipe is its
        // business, the test checks what it wrote.
        let _ = f.write_all(&bytes);
    });
    (p, t)
}

#[test]
fn regression_a_fifo_input_is_read_once_and_whole() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = mbox(dir.path());
    let bytes = std::fs::read(&file).expect("read");
    let from_file = run(&[os("normalize"), os("-q"), file.as_os_str()]);
    let (f, t) = fifo(dir.path(), "pipe.mbox", bytes.clone());
    let from_fifo = run(&[os("normalize"), os("-q"), f.as_os_str()]);
    t.join().expect("writer");
    assert!(from_file.status.success() && from_fifo.status.success());
    assert_eq!(
        from_fifo.stdout, from_file.stdout,
        "same output from a FIFO"
    );

    let audit_file = run(&[
        os("audit"),
        os("-q"),
        os("--format"),
        os("jsonl"),
        file.as_os_str(),
    ]);
    let (f2, t2) = fifo(dir.path(), "pipe2.mbox", bytes);
    let audit_fifo = run(&[
        os("audit"),
        os("-q"),
        os("--format"),
        os("jsonl"),
        f2.as_os_str(),
    ]);
    t2.join().expect("writer");
    let count = |o: &Output| o.stdout.iter().filter(|&&b| b == b'\n').count();
    assert!(count(&audit_file) > 100);
    assert_eq!(count(&audit_fifo), count(&audit_file));

    // One message through a FIFO.
    let one = std::fs::read(fixture("koi8r-base64.eml")).expect("read");
    let (f3, t3) = fifo(dir.path(), "one.eml", one);
    let out = run(&[os("normalize"), os("-q"), f3.as_os_str()]);
    t3.join().expect("writer");
    let want = run(&[
        os("normalize"),
        os("-q"),
        fixture("koi8r-base64.eml").as_os_str(),
    ]);
    assert!(!want.stdout.is_empty());
    assert_eq!(out.stdout, want.stdout);
}

#[test]
fn regression_inputs_with_the_same_name_keep_their_paths_under_the_output() {
    let dir = tempfile::tempdir().expect("tmp");
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    std::fs::create_dir_all(&a).expect("mkdir");
    std::fs::create_dir_all(&b).expect("mkdir");
    std::fs::copy(fixture("koi8r-base64.eml"), a.join("m.eml")).expect("copy");
    std::fs::copy(fixture("big5.eml"), b.join("m.eml")).expect("copy");
    let out = dir.path().join("out");
    let o = Command::new(bin())
        .current_dir(dir.path())
        .args(["normalize", "-q", "a/m.eml", "b/m.eml", "-o", "out"])
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for (input, output) in [("a/m.eml", "a/m.eml"), ("b/m.eml", "b/m.eml")] {
        let alone = run(&[
            os("normalize"),
            os("-q"),
            dir.path().join(input).as_os_str(),
        ]);
        assert_eq!(
            std::fs::read(out.join(output)).expect("written"),
            alone.stdout
        );
    }
    // The same input twice: refused before anything is written.
    let o = Command::new(bin())
        .current_dir(dir.path())
        .args(["normalize", "-q", "a/m.eml", "a/m.eml", "-o", "out2"])
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(64));
    assert!(!dir.path().join("out2").exists());
}

#[test]
fn regression_in_place_never_removes_a_users_backup() {
    // A `NAME.bak` is the user's: left alone (the run's own backup has a
    // hidden name of its own).
    let dir = tempfile::tempdir().expect("tmp");
    let m = dir.path().join("m.eml");
    std::fs::copy(fixture("koi8r-base64.eml"), &m).expect("copy");
    let original = std::fs::read(&m).expect("read");
    let users = dir.path().join("m.eml.bak");
    std::fs::write(&users, b"the user's own backup").expect("write");
    let o = run(&[os("normalize"), os("-q"), os("--in-place"), m.as_os_str()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        std::fs::read(&users).expect("kept"),
        b"the user's own backup"
    );
    assert_ne!(std::fs::read(&m).expect("input"), original, "normalized");
    assert!(!mailbox::backup_path(&m).exists());
}

#[test]
fn regression_a_killed_in_place_runs_backup_is_hidden_and_replaced_by_the_next_run() {
    // A killed `--in-place FILE` left `FILE.bak`, a visible hard link to
    // the mailbox: a later folder run read it as a second mailbox (60,000
    // messages in, 120,000 out) and a mail client showed it as a folder.
    use mailbox::{FolderReader, MessageWriter, OutputKind, WriteMode};
    let dir = tempfile::tempdir().expect("tmp");
    let mail = dir.path().join("Mail");
    std::fs::create_dir(&mail).expect("mkdir");
    let inbox = mail.join("inbox");
    std::fs::copy(mbox(dir.path()), &inbox).expect("copy");
    let original = std::fs::read(&inbox).expect("read");
    let kind = mailbox::detect(&inbox).expect("detect");
    // The backup as a run leaves it when killed before its rename.
    let w = MessageWriter::create(&inbox, OutputKind::matching(kind), WriteMode::InPlace)
        .expect("writer");
    let bak = mailbox::backup_path(&inbox);
    assert_eq!(std::fs::read(&bak).expect("backup"), original);
    assert!(
        bak.file_name()
            .is_some_and(|n| n.as_encoded_bytes().starts_with(b".")),
        "hidden: {}",
        bak.display()
    );
    let files: Vec<_> = FolderReader::open(&mail)
        .expect("folder")
        .map(|m| m.expect("message").origin)
        .collect();
    assert_eq!(
        files.len(),
        1,
        "a folder run reads the mailbox once: {files:?}"
    );
    std::mem::forget(w);
    assert!(bak.exists(), "as a killed run leaves it");

    // The next run replaces it (here: a link to the input itself), and a
    // partial copy of the input (the start of it) too.
    let in_place = || {
        run(&[
            os("normalize"),
            os("-q"),
            os("--in-place"),
            inbox.as_os_str(),
        ])
    };
    let o = in_place();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!bak.exists());
    let normalized = std::fs::read(&inbox).expect("read");
    assert_ne!(normalized, original);
    std::fs::write(&bak, &normalized[..normalized.len() / 2]).expect("a partial copy");
    let o = in_place();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!bak.exists());
    assert_eq!(
        std::fs::read(&inbox).expect("read"),
        normalized,
        "idempotent"
    );

    // One that holds what the input does not (the old version of an input
    // replaced, with mail a late writer appended that could not be copied
    // over) is never replaced: 75, named, both left as they are. (It was
    // replaced, and that mail was gone.)
    let mut older = original.clone();
    older.extend_from_slice(DELIVERED);
    std::fs::write(&bak, &older).expect("an older version with late mail");
    let o = in_place();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(75), "{err}");
    assert!(err.contains(".inbox.mailcharset-bak"), "{err}");
    assert_eq!(std::fs::read(&bak).expect("kept"), older);
    assert_eq!(std::fs::read(&inbox).expect("read"), normalized);
    assert!(!mailbox::lock_path(&inbox).exists());
}

fn maildir_tree(root: &Path) {
    for d in [
        "cur",
        "new",
        "tmp",
        "bar/cur",
        "bar/new",
        "bar/tmp",
        "foo/cur",
        "foo/new",
        "foo/tmp",
        "foo/sub/cur",
        "foo/sub/new",
        ".Sent/cur",
        ".Sent/new",
    ] {
        std::fs::create_dir_all(root.join(d)).expect("mkdir");
    }
    let m = std::fs::read(fixture("koi8r-base64.eml")).expect("read");
    for (i, d) in [
        "cur",
        "new",
        "bar/cur",
        "foo/new",
        "foo/sub/cur",
        ".Sent/cur",
    ]
    .iter()
    .enumerate()
    {
        std::fs::write(root.join(d).join(format!("100{i}.host:2,S")), &m).expect("write");
    }
    std::fs::write(root.join("loose.eml"), &m).expect("write");
    std::fs::write(root.join("dovecot-uidlist"), b"3 V1 N2\n").expect("write");
    std::fs::write(root.join("tmp/being-delivered"), b"partial").expect("write");
}

#[test]
fn regression_nested_maildirs_are_read_and_loose_files_are_listed() {
    let dir = tempfile::tempdir().expect("tmp");
    let md = dir.path().join("md");
    maildir_tree(&md);
    let out = dir.path().join("out");
    let o = run(&[os("normalize"), md.as_os_str(), os("-o"), out.as_os_str()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("6 messages in, 6 out"), "{stderr}");
    assert!(
        stderr.contains("1 file(s) skipped") && stderr.contains("loose.eml"),
        "{stderr}"
    );
    for d in [
        "cur",
        "new",
        "bar/cur",
        "foo/new",
        "foo/sub/cur",
        ".Sent/cur",
    ] {
        let n = std::fs::read_dir(out.join(d)).expect(d).count();
        assert_eq!(n, 1, "{d}");
    }
    let o = run(&[
        os("audit"),
        os("-q"),
        os("--strict-inputs"),
        os("--format"),
        os("jsonl"),
        md.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(66));
}

#[test]
fn regression_a_message_that_vanishes_mid_run_is_skipped_or_found_under_its_new_name() {
    let dir = tempfile::tempdir().expect("tmp");
    let md = dir.path().join("md");
    for d in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(md.join(d)).expect("mkdir");
    }
    for i in 0..4 {
        std::fs::write(
            md.join(format!("new/m{i}")),
            format!("Subject: {i}\n\nbody\n"),
        )
        .expect("w");
    }
    let mut r = MaildirReader::open(&md).expect("open");
    let log = r.skipped();
    // A server moves m1 to cur/ with flags, and deletes m2, after listing.
    std::fs::rename(md.join("new/m1"), md.join("cur/m1:2,S")).expect("mv");
    std::fs::remove_file(md.join("new/m2")).expect("rm");
    let read: Vec<_> = r.by_ref().map(|m| m.expect("no error")).collect();
    let subjects: Vec<String> = read
        .iter()
        .map(|m| String::from_utf8_lossy(&m.bytes[..10]).into_owned())
        .collect();
    assert_eq!(subjects, ["Subject: 0", "Subject: 1", "Subject: 3"]);
    assert_eq!(
        read[1].origin.maildir_flags(),
        Some("S"),
        "read under its new name"
    );
    let skipped = log.list();
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0].reason, SkipReason::Vanished);
    assert!(skipped[0].path.ends_with("new/m2"));

    // A dangling link in cur/: listed, the run goes on.
    std::os::unix::fs::symlink("/nonexistent/x", md.join("cur/gone:2,")).expect("ln");
    let o = run(&[
        os("audit"),
        os("-q"),
        os("--format"),
        os("jsonl"),
        md.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("dangling"));
}

/// Runs `filter` through the shell, so that its descriptors can be closed.
fn filter_sh(script: &str) -> (Option<i32>, Vec<u8>) {
    let o = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(bin())
        .arg(fixture("koi8r-base64.eml"))
        .output()
        .expect("sh runs");
    (o.status.code(), o.stdout)
}

#[test]
fn regression_filter_exits_75_when_the_message_cannot_be_read_or_written() {
    let (code, _) = filter_sh(r#"exec "$0" filter < "$1" >&-"#);
    assert_eq!(code, Some(75), "stdout closed");
    let (code, out) = filter_sh(r#"exec "$0" filter <&-"#);
    assert_eq!((code, out.len()), (Some(75), 0), "stdin closed");
    let want = run(&[
        os("normalize"),
        os("-q"),
        fixture("koi8r-base64.eml").as_os_str(),
    ]);
    // stderr closed: the message is written whole, exit 0.
    let (code, out) = filter_sh(r#"exec "$0" filter < "$1" 2>&-"#);
    assert_eq!(code, Some(0));
    assert_eq!(out, want.stdout);
    // stderr a broken pipe (its reader gone before the filter writes its
    // line): the message is written whole, exit 0, no panic (was 101).
    let mut child = Command::new(bin())
        .arg("filter")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    drop(child.stderr.take());
    let msg = std::fs::read(fixture("koi8r-base64.eml")).expect("read");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&msg)
        .expect("write");
    let o = child.wait_with_output().expect("wait");
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(o.stdout, want.stdout);
}

#[test]
fn regression_a_report_that_cannot_be_written_keeps_the_output_from_being_replaced() {
    let dir = tempfile::tempdir().expect("tmp");
    let input = mbox(dir.path());
    let out = dir.path().join("out.mbox");
    std::fs::write(&out, b"previous output").expect("write");
    // /dev/full: every write fails with "no space left on device".
    let o = run(&[
        os("normalize"),
        os("-q"),
        input.as_os_str(),
        os("-o"),
        out.as_os_str(),
        os("--report"),
        os("/dev/full"),
    ]);
    assert_eq!(o.status.code(), Some(74));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not replaced"));
    assert_eq!(std::fs::read(&out).expect("kept"), b"previous output");
}

#[test]
fn regression_message_content_cannot_drive_the_terminal() {
    let dir = tempfile::tempdir().expect("tmp");
    // A file name, a Message-ID and a label with ESC, BEL and 8-bit CSI.
    let name = dir.path().join("evil\x1b]0;x\x07.eml");
    std::fs::write(
        &name,
        b"From: a@b.com\nMessage-ID: <\x1b]0;pwned\x07@x>\n\
          Content-Type: text/plain; charset=\"\x1b[2J\xc2\x9b31m\"\n\nbody \xe9\n",
    )
    .expect("write");
    let dangerous = |b: &[u8]| {
        b.iter().any(|&c| c == 0x1b || c == 0x07 || c == 0x7f)
            || b.windows(2)
                .any(|w| w[0] == 0xc2 && (0x80..0xa0).contains(&w[1]))
    };
    for format in ["table", "csv", "jsonl", "json"] {
        let o = run(&[os("audit"), os("--format"), os(format), name.as_os_str()]);
        assert!(!o.stdout.is_empty(), "{format}");
        assert!(
            !dangerous(&o.stdout),
            "{format}: {}",
            String::from_utf8_lossy(&o.stdout)
        );
        assert!(!dangerous(&o.stderr), "{format} stderr");
    }
    // JSON keeps the text: escaped, not lost.
    let o = run(&[os("audit"), os("--format"), os("jsonl"), name.as_os_str()]);
    let text = String::from_utf8(o.stdout).expect("utf-8");
    let rec: serde_json::Value =
        serde_json::from_str(text.lines().nth(1).expect("body record")).expect("json");
    assert_eq!(rec["label"], "\u{1b}[2J\u{9b}31m");
}

#[test]
fn regression_padded_base64_words_count_once_against_the_limit() {
    use mailcharset::message::Limits;
    let limits = Limits::default();
    let padded = " =?utf-8?B?w6k=?=".repeat(limits.max_encoded_words);
    let unpadded = " =?utf-8?B?w6nDqQ?=".repeat(limits.max_encoded_words);
    assert!(
        limits.field_within_limits(padded.as_bytes()),
        "padding is not an opener"
    );
    assert!(limits.field_within_limits(unpadded.as_bytes()));
    let over = format!("{padded} =?utf-8?B?w6k=?=");
    assert!(!limits.field_within_limits(over.as_bytes()));
}

#[test]
fn regression_many_rfc2231_parameters_take_linear_time() {
    // 50,000 parameters took 2.7-3.0 s in a release build (each searched
    // all before it), minutes in a test build. No clock here: the parse must
    // give them all back, in order; the quadratic version does too, but
    // only after minutes (doc/limits.md has the measured times).
    let n = 50_000;
    let params: String = (0..n).map(|i| format!(";\r\n p{i}=v{i}")).collect();
    let ct = format!("text/plain; charset=utf-8{params}");
    let parsed = mailcharset::mime::ContentType::parse(ct.as_bytes());
    assert_eq!(parsed.params.len(), n + 1);
    assert_eq!(parsed.params[n].name, format!("p{}", n - 1));
}

#[test]
fn regression_a_message_over_the_size_limit_streams_through_unchanged() {
    let dir = tempfile::tempdir().expect("tmp");
    // A message of 3 MiB against a 1 MiB limit: through a file, a pipe and
    // the filter, out byte for byte, with a note; the audit reports it.
    let mut big = std::fs::read(fixture("koi8r-base64.eml")).expect("read");
    big.extend(std::iter::repeat_n(b'a', 3 << 20));
    let file = dir.path().join("big.eml");
    std::fs::write(&file, &big).expect("write");
    let out = dir.path().join("out.eml");
    let o = run(&[
        os("normalize"),
        os("--max-message-size"),
        os("1M"),
        file.as_os_str(),
        os("-o"),
        out.as_os_str(),
    ]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("passed through unchanged"));
    assert_eq!(std::fs::read(&out).expect("out"), big);
    for args in [
        vec!["filter", "--max-message-size", "1M"],
        vec!["normalize", "--max-message-size", "1M", "-"],
    ] {
        let mut child = Command::new(bin())
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let mut stdin = child.stdin.take().expect("stdin");
        let data = big.clone();
        let t = std::thread::spawn(move || stdin.write_all(&data));
        let o = child.wait_with_output().expect("wait");
        t.join().expect("writer").expect("written");
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        assert!(o.stdout == big, "{args:?}: passed through byte for byte");
    }
    let o = run(&[
        os("audit"),
        os("--max-message-size"),
        os("1M"),
        os("--format"),
        os("jsonl"),
        file.as_os_str(),
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("limit-reached") && text.contains("header:Subject"),
        "{text}"
    );
    // Under the limit, the same message is normalized as usual.
    let o = run(&[os("normalize"), os("-q"), file.as_os_str()]);
    assert_ne!(o.stdout, big);
}

#[test]
fn regression_small_things_seen_on_the_way() {
    let dir = tempfile::tempdir().expect("tmp");
    // In place on a folder, a symlinked message stays a link; its target
    // is normalized.
    let folder = dir.path().join("folder");
    let store = dir.path().join("store");
    std::fs::create_dir_all(&folder).expect("mkdir");
    std::fs::create_dir_all(&store).expect("mkdir");
    std::fs::copy(fixture("koi8r-base64.eml"), store.join("m.eml")).expect("copy");
    std::os::unix::fs::symlink(store.join("m.eml"), folder.join("m.eml")).expect("ln");
    let o = run(&[
        os("normalize"),
        os("-q"),
        os("--in-place"),
        folder.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let meta = std::fs::symlink_metadata(folder.join("m.eml")).expect("there");
    assert!(meta.file_type().is_symlink(), "still a link");
    let alone = run(&[
        os("normalize"),
        os("-q"),
        fixture("koi8r-base64.eml").as_os_str(),
    ]);
    assert_eq!(
        std::fs::read(store.join("m.eml")).expect("target"),
        alone.stdout
    );

    // --headers utf8: a long first word goes on the Subject line, not alone
    // after `Subject:`.
    let text = "会議の資料を送ります。よろしくお願いします。明日の午後三時から始まります";
    let enc = {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD.encode(text.as_bytes())
    };
    let m = dir.path().join("u.eml");
    std::fs::write(
        &m,
        format!("From: a@b.com\nSubject: =?utf-8?B?{enc}?=\n\nbody\n"),
    )
    .expect("w");
    let o = run(&[
        os("normalize"),
        os("-q"),
        os("--headers"),
        os("utf8"),
        m.as_os_str(),
    ]);
    let out = String::from_utf8(o.stdout).expect("utf-8");
    assert!(out.contains(&format!("Subject: {text}\n")), "{out}");

    // A raw 8-bit Subject ending in a tab keeps its tab.
    let m = dir.path().join("t.eml");
    std::fs::write(&m, b"From: a@b.com\nSubject: caf\xe9 au lait\t\n\nbody\n").expect("w");
    let o = run(&[os("normalize"), os("-q"), m.as_os_str()]);
    let parsed = mailcharset::message::Message::parse(&o.stdout);
    let subject = parsed.parts()[0].header.get("subject").expect("Subject");
    let decoded = mailcharset::mime::decode_unstructured(subject.value).text;
    assert!(
        decoded.ends_with("lait\t") || decoded.ends_with("lait \t"),
        "{decoded:?}"
    );
    assert!(decoded.starts_with("café"), "{decoded:?}");
}

/// A message file as some tools save it (and 44 of the 207 files of
/// SpamAssassin's `t/data` are): an mbox envelope line first, a `>From `
/// line and a bare `From ` line in the body, and a line after a blank line
/// that looks like a header.
const ENVELOPED: &[u8] = b"From a@b Mon Jan  1 00:00:00 2001\n\
From: a@b\nSubject: x\nContent-Type: text/plain; charset=iso-8859-1\n\n\
Hello Jos\xe9\n>From the archive\nFrom the desk of Jos\xe9:\nRegards: Jos\xe9\n\n\
bye Jos\xe9\n";

fn lib_normalize(raw: &[u8]) -> Vec<u8> {
    mailcharset::normalize::normalize(raw, &mailcharset::normalize::Options::default())
        .expect("normalizes")
        .bytes
        .into_owned()
}

/// A Maildir with ENVELOPED in `cur/` and a plain message in `new/`, and a
/// folder with the same two files.
fn enveloped_inputs(dir: &Path) -> (PathBuf, PathBuf) {
    let plain = std::fs::read(fixture("koi8r-base64.eml")).expect("read");
    let md = dir.join("md");
    for d in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(md.join(d)).expect("mkdir");
    }
    std::fs::write(md.join("cur/1.host:2,S"), ENVELOPED).expect("w");
    std::fs::write(md.join("new/2.host"), &plain).expect("w");
    let folder = dir.join("folder");
    std::fs::create_dir_all(folder.join("sub")).expect("mkdir");
    std::fs::write(folder.join("a.eml"), ENVELOPED).expect("w");
    std::fs::write(folder.join("sub/b.eml"), &plain).expect("w");
    (md, folder)
}

#[test]
fn regression_a_maildir_or_folder_file_starting_with_from_is_one_message() {
    let dir = tempfile::tempdir().expect("tmp");
    let (md, folder) = enveloped_inputs(dir.path());
    let want = lib_normalize(ENVELOPED);
    // The whole message, envelope line kept as it was, body not unquoted,
    // not split at its `From ` line.
    assert!(want.starts_with(b"From a@b Mon Jan  1 00:00:00 2001\n"));
    let has = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).any(|w| w == needle);
    assert!(has(&want, b"\n>From the archive\n"));
    assert!(has(&want, b"\nbye Jos"));
    for (input, file) in [(&md, "cur/1.host:2,S"), (&folder, "a.eml")] {
        let out = dir.path().join("out");
        let o = run(&[
            os("normalize"),
            os("-q"),
            input.as_os_str(),
            os("-o"),
            out.as_os_str(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(
            std::fs::read(out.join(file)).expect("written"),
            want,
            "{file}"
        );
        std::fs::remove_dir_all(&out).expect("rm");

        // In place: the same bytes replace the file.
        let copy = dir.path().join("copy");
        let o = Command::new("cp")
            .arg("-a")
            .arg(input)
            .arg(&copy)
            .status()
            .expect("cp");
        assert!(o.success());
        let o = run(&[
            os("normalize"),
            os("-q"),
            os("--in-place"),
            copy.as_os_str(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(std::fs::read(copy.join(file)).expect("there"), want);
        std::fs::remove_dir_all(&copy).expect("rm");

        // audit reads it the same way: one message, index 0, named by
        // its file.
        let o = run(&[os("audit"), os("--format"), os("jsonl"), input.as_os_str()]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let name = input.join(file).display().to_string();
        let mut messages = std::collections::BTreeSet::new();
        for line in String::from_utf8(o.stdout).expect("utf-8").lines() {
            let r: serde_json::Value = serde_json::from_str(line).expect("json");
            let index = r["index"].as_u64().expect("index");
            messages.insert((r["input"].as_str().expect("input").to_string(), index));
        }
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(
            messages.contains(&(name.clone(), 0)),
            "{name}: {messages:?}"
        );
    }
}

/// A single message saved with its envelope line, whose body has a
/// paragraph `From January 2019 to March 2020` (a line ending in a year,
/// after an empty line): the folder file was taken for an mbox and split
/// there, its second half written back unconverted (Latin-1 under the
/// first half's new `charset=utf-8`), audited as a second message.
#[test]
fn regression_a_body_line_ending_in_a_year_does_not_split_a_folder_file() {
    let msg: &[u8] = b"From a@b Mon Jan  1 00:00:00 2001\n\
From: a@b\nSubject: CV\nContent-Type: text/plain; charset=iso-8859-1\n\n\
Work, Jos\xe9:\n\nFrom January 2019 to March 2020\nat ACME in Z\xfcrich.\n";
    let dir = tempfile::tempdir().expect("tmp");
    let folder = dir.path().join("folder");
    std::fs::create_dir_all(&folder).expect("mkdir");
    std::fs::write(folder.join("cv.eml"), msg).expect("w");
    let out = dir.path().join("out");
    let o = run(&[
        os("normalize"),
        os("-q"),
        folder.as_os_str(),
        os("-o"),
        out.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let written = std::fs::read(out.join("cv.eml")).expect("written");
    assert_eq!(written, lib_normalize(msg));
    assert!(String::from_utf8_lossy(&written).contains("Z=C3=BCrich"));
    let o = run(&[os("audit"), os("--format"), os("jsonl"), folder.as_os_str()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for line in String::from_utf8(o.stdout).expect("utf-8").lines() {
        let r: serde_json::Value = serde_json::from_str(line).expect("json");
        assert_eq!(r["index"].as_u64(), Some(0), "{line}");
    }
}

#[test]
fn regression_the_report_has_one_record_per_message() {
    let dir = tempfile::tempdir().expect("tmp");
    let (md, folder) = enveloped_inputs(dir.path());
    // Messages over --max-message-size pass through unchanged, and are
    // reported so; a single message over it too.
    let single = fixture("koi8r-base64.eml");
    let name = |p: PathBuf| p.display().to_string();
    // Each line names the message as audit's records do: a file of a
    // Maildir or folder by its own path, index 0 (they named the folder,
    // with the message's place in it: `"input":"folder","index":1`, which
    // no file and no audit record matched).
    let in_md = [
        (name(md.join("cur/1.host:2,S")), 0),
        (name(md.join("new/2.host")), 0),
    ];
    let in_folder = [
        (name(folder.join("a.eml")), 0),
        (name(folder.join("sub/b.eml")), 0),
    ];
    let alone = [(name(single.clone()), 0)];
    for (input, size, want) in [
        (&md, "10M", in_md.as_slice()),
        (&folder, "10M", &in_folder),
        (&folder, "100", &in_folder),
        (&single, "100", &alone),
    ] {
        let out = dir.path().join("out");
        let report = dir.path().join("report.jsonl");
        let o = run(&[
            os("normalize"),
            input.as_os_str(),
            os("--max-message-size"),
            os(size),
            os("-o"),
            out.as_os_str(),
            os("--report"),
            report.as_os_str(),
        ]);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{stderr}");
        let n = want.len();
        if size == "10M" {
            assert!(
                stderr.contains(&format!(": {n} messages in, {n} out")),
                "{stderr}"
            );
        }
        let text = std::fs::read_to_string(&report).expect("report");
        let records: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("json"))
            .collect();
        let mut named: Vec<(String, u64)> = records
            .iter()
            .map(|r| {
                (
                    r["input"].as_str().expect("input").to_string(),
                    r["index"].as_u64().expect("index"),
                )
            })
            .collect();
        named.sort();
        let mut want = want.to_vec();
        want.sort();
        assert_eq!(named, want, "{}: {text}", input.display());
        // The same names as audit's records, message for message.
        let audit: Vec<(String, u64)> = audited(
            &[os("--max-message-size"), os(size), input.as_os_str()],
            b"",
        )
        .into_iter()
        .collect();
        assert_eq!(named, audit, "{}: {text}", input.display());
        if size == "100" {
            assert!(
                records.iter().all(|r| r["note"]
                    .as_str()
                    .is_some_and(|n| n.contains("max-message-size"))),
                "{text}"
            );
        }
        if out.is_dir() {
            std::fs::remove_dir_all(&out).expect("rm");
        } else {
            std::fs::remove_file(&out).expect("rm");
        }
    }
    // A file that does not start like a message: its line names it too
    // (audit lists it among the skipped files, by the same name).
    std::fs::write(folder.join("notes.txt"), b"not mail\n").expect("w");
    let out = dir.path().join("out");
    let report = dir.path().join("report.jsonl");
    let o = run(&[
        os("normalize"),
        folder.as_os_str(),
        os("-o"),
        out.as_os_str(),
        os("--report"),
        report.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&report).expect("report");
    let notes = name(folder.join("notes.txt"));
    assert!(
        text.lines().any(|l| {
            let r: serde_json::Value = serde_json::from_str(l).expect("json");
            r["input"] == notes.as_str()
                && r["index"] == 0
                && r["note"]
                    .as_str()
                    .is_some_and(|n| n.contains("does not start"))
        }),
        "{text}"
    );
}

#[test]
fn regression_a_maildir_file_name_that_is_not_utf8_is_read_and_kept() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().expect("tmp");
    let md = dir.path().join("md");
    for d in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(md.join(d)).expect("mkdir");
    }
    let m = std::fs::read(fixture("koi8r-base64.eml")).expect("read");
    let odd = std::ffi::OsStr::from_bytes(b"b\xe9.host:2,RS");
    for name in [os("a"), odd, os("c")] {
        std::fs::write(md.join("cur").join(name), &m).expect("w");
    }
    // The library reads it under its own name, flags and all.
    let read: Vec<_> = MaildirReader::open(&md)
        .expect("open")
        .map(|r| r.expect("no error"))
        .collect();
    assert_eq!(read.len(), 3);
    assert!(matches!(&read[1].origin,
        mailbox::Origin::Maildir { name, .. } if name.as_os_str() == odd));
    assert_eq!(read[1].origin.maildir_flags(), Some("RS"));

    let want = lib_normalize(&m);
    let out = dir.path().join("out");
    let o = run(&[os("normalize"), md.as_os_str(), os("-o"), out.as_os_str()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("3 messages in, 3 out"), "{stderr}");
    assert_eq!(
        std::fs::read(out.join("cur").join(odd)).expect("kept"),
        want
    );

    let o = run(&[os("audit"), os("--format"), os("jsonl"), md.as_os_str()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let inputs: std::collections::BTreeSet<String> = String::from_utf8(o.stdout)
        .expect("utf-8")
        .lines()
        .map(|l| {
            let r: serde_json::Value = serde_json::from_str(l).expect("json");
            r["input"].as_str().expect("input").to_string()
        })
        .collect();
    assert_eq!(inputs.len(), 3, "{inputs:?}");

    let o = run(&[os("normalize"), os("-q"), os("--in-place"), md.as_os_str()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for name in [os("a"), odd, os("c")] {
        assert_eq!(
            std::fs::read(md.join("cur").join(name)).expect("there"),
            want
        );
    }
}

/// Runs `mailcharset ARGS...` under `ulimit -f` (a file may not grow past a
/// few KiB: writes past it fail with EFBIG, SIGXFSZ ignored), a stand-in for
/// a full disk that needs neither root nor a small file system.
fn run_with_file_size_limit(args: &[&std::ffi::OsStr]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 8 || exit 99; exec \"$@\"")
        .arg("sh")
        .arg(bin())
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("sh runs")
}

#[test]
fn regression_a_failed_in_place_run_removes_its_backup() {
    let dir = tempfile::tempdir().expect("tmp");
    let input = mbox(dir.path());
    let original = std::fs::read(&input).expect("read");
    let o = run_with_file_size_limit(&[
        os("normalize"),
        os("-q"),
        os("--in-place"),
        input.as_os_str(),
    ]);
    assert_ne!(o.status.code(), Some(99), "ulimit -f not available");
    assert_eq!(
        o.status.code(),
        Some(74),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        std::fs::read(&input).expect("input"),
        original,
        "input untouched"
    );
    let bak = mailbox::backup_path(&input);
    assert!(!bak.exists(), "the backup of an abandoned run is removed");
    assert_eq!(
        crate::common::temporaries(dir.path()),
        Vec::<PathBuf>::new(),
        "nor is a temporary left"
    );
    // The same run without the limit completes.
    let o = run(&[
        os("normalize"),
        os("-q"),
        os("--in-place"),
        input.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!bak.exists());
}

#[test]
fn regression_audit_counts_files_that_do_not_start_like_a_message_as_skipped() {
    let dir = tempfile::tempdir().expect("tmp");
    let folder = dir.path().join("folder");
    std::fs::create_dir_all(&folder).expect("mkdir");
    std::fs::copy(fixture("koi8r-base64.eml"), folder.join("a.eml")).expect("copy");
    std::fs::write(folder.join("b.eml"), b"hello world, this is a note\n").expect("w");
    let audit = |strict: bool| {
        let mut args = vec![os("audit"), os("-q"), os("--format"), os("jsonl")];
        if strict {
            args.push(os("--strict-inputs"));
        }
        args.push(folder.as_os_str());
        run(&args)
    };
    let o = audit(false);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stderr.contains("1 file(s) skipped")
            && stderr.contains("b.eml (does not start like a message)"),
        "{stderr}"
    );
    assert!(!o.stdout.is_empty(), "a.eml audited");
    assert_eq!(audit(true).status.code(), Some(66));
}

#[test]
fn regression_a_symbolic_link_loop_is_skipped_like_a_dangling_link() {
    let dir = tempfile::tempdir().expect("tmp");
    let folder = dir.path().join("folder");
    let md = dir.path().join("md");
    std::fs::create_dir_all(&folder).expect("mkdir");
    for d in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(md.join(d)).expect("mkdir");
    }
    let m = std::fs::read(fixture("koi8r-base64.eml")).expect("read");
    for (at, message) in [(folder.clone(), "m.eml"), (md.join("cur"), "1.host:2,S")] {
        std::fs::write(at.join(message), &m).expect("w");
        std::os::unix::fs::symlink("la", at.join("lb")).expect("ln");
        std::os::unix::fs::symlink("lb", at.join("la")).expect("ln");
        std::os::unix::fs::symlink("self", at.join("self")).expect("ln");
        // A link whose way to its target goes through a loop.
        std::os::unix::fs::symlink("la/x", at.join("through")).expect("ln");
    }
    for (input, message) in [(&folder, "m.eml"), (&md, "cur/1.host:2,S")] {
        let out = dir.path().join("out");
        let o = run(&[
            os("normalize"),
            input.as_os_str(),
            os("-o"),
            out.as_os_str(),
        ]);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{stderr}");
        assert!(
            stderr.contains("4 file(s) skipped") && stderr.contains("(a symbolic link that loops)"),
            "{stderr}"
        );
        assert_eq!(
            std::fs::read(out.join(message)).expect("written"),
            lib_normalize(&m)
        );
        std::fs::remove_dir_all(&out).expect("rm");
        let o = run(&[
            os("audit"),
            os("-q"),
            os("--format"),
            os("jsonl"),
            input.as_os_str(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(!o.stdout.is_empty());
        let o = run(&[
            os("audit"),
            os("-q"),
            os("--strict-inputs"),
            os("--format"),
            os("jsonl"),
            input.as_os_str(),
        ]);
        assert_eq!(o.status.code(), Some(66));
    }
}

/// An mbox of two messages as a mail reader keeps one in a folder of
/// mailboxes (mutt's ~/Mail, Thunderbird's Local Folders): the second
/// `From ` line, after an empty line, is an envelope line; the first
/// message's body has a quoted `>From ` line.
const TWO_MESSAGE_MBOX: &[u8] = b"From a@b.c Mon Jan  1 00:00:00 2001\n\
From: a@b.c\nSubject: one\nContent-Type: text/plain; charset=iso-8859-1\n\n\
Hello Jos\xe9\n>From the archive\n\n\
From MAILER-DAEMON Fri Jul  8 12:08:34 2011 +0000\n\
From: d@e.f\nSubject: two\nContent-Type: text/plain; charset=iso-8859-1\n\n\
Adi\xf3s\n\n";

#[test]
fn regression_an_mbox_file_in_a_folder_is_read_as_an_mbox_a_single_message_is_not() {
    let dir = tempfile::tempdir().expect("tmp");
    let (_, folder) = enveloped_inputs(dir.path());
    std::fs::write(folder.join("box"), TWO_MESSAGE_MBOX).expect("w");
    let flavor = mailbox::MboxFlavor {
        format: mailbox::MboxFormat::Mboxo,
        crlf: false,
    };
    let inner: Vec<Vec<u8>> = mailbox::MboxReader::new(TWO_MESSAGE_MBOX, "box", flavor)
        .map(|m| m.expect("read").bytes)
        .collect();
    assert_eq!(inner.len(), 2);
    let out = dir.path().join("out");
    let report = dir.path().join("report.jsonl");
    let o = run(&[
        os("normalize"),
        os("-q"),
        folder.as_os_str(),
        os("-o"),
        out.as_os_str(),
        os("--report"),
        report.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The mbox: two messages, each normalized, written back as an mbox
    // (envelope lines kept, `>From ` quoted again).
    let got = std::fs::read(out.join("box")).expect("written");
    let has = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).any(|w| w == needle);
    assert!(got.starts_with(b"From a@b.c Mon Jan  1 00:00:00 2001\n"));
    assert!(has(
        &got,
        b"\n\nFrom MAILER-DAEMON Fri Jul  8 12:08:34 2011 +0000\n"
    ));
    // Read as an mbox, the `>From ` line was unquoted (the normalized
    // body quotes it its own way).
    assert!(has(&inner[0], b"\nFrom the archive\n"));
    let read: Vec<Vec<u8>> = mailbox::MboxReader::new(&got[..], "box", flavor)
        .map(|m| m.expect("read").bytes)
        .collect();
    let want: Vec<Vec<u8>> = inner.iter().map(|m| lib_normalize(m)).collect();
    assert_eq!(read, want);
    // The single message with an envelope line: one message, nothing
    // unquoted, not split.
    let single = std::fs::read(out.join("a.eml")).expect("written");
    assert_eq!(single, lib_normalize(ENVELOPED));
    assert!(single.starts_with(b"From a@b Mon Jan  1 00:00:00 2001\nFrom: a@b\n"));
    assert!(has(
        &single,
        b"\n>From the archive\n=46rom the desk of Jos=C3=A9:\n"
    ));
    assert!(has(&single, b"\nbye Jos=C3=A9\n"));
    // One report line per message; audit counts the same messages.
    let text = std::fs::read_to_string(&report).expect("report");
    assert_eq!(text.lines().count(), 4, "{text}");
    let box_name = folder.join("box").display().to_string();
    let mut reported = std::collections::BTreeSet::new();
    for line in text.lines() {
        let r: serde_json::Value = serde_json::from_str(line).expect("json");
        if r["input"] == box_name.as_str() {
            reported.insert(r["index"].as_u64().expect("index"));
        }
    }
    assert_eq!(reported, [0, 1].into(), "{text}");
    let o = run(&[os("audit"), os("--format"), os("jsonl"), folder.as_os_str()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut messages = std::collections::BTreeSet::new();
    for line in String::from_utf8(o.stdout).expect("utf-8").lines() {
        let r: serde_json::Value = serde_json::from_str(line).expect("json");
        let index = r["index"].as_u64().expect("index");
        messages.insert((r["input"].as_str().expect("input").to_string(), index));
    }
    let a = folder.join("a.eml").display().to_string();
    let b = folder.join("sub/b.eml").display().to_string();
    let want: std::collections::BTreeSet<_> =
        [(a, 0), (box_name.clone(), 0), (box_name, 1), (b, 0)].into();
    assert_eq!(messages, want);
}

// Found by tools/hunt_archives.py: archives as real writers make them,
// each way in (a file, standard input, a pipe, a folder) giving the same
// messages.

/// Runs `mailcharset ARGS...` with `input` on its standard input.
fn run_stdin(args: &[&std::ffi::OsStr], input: &[u8]) -> Output {
    let mut child = Command::new(bin())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    let feeder = std::thread::spawn(move || {
        // The binary may stop reading early; what it wrote is checked.
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("waits");
    feeder.join().expect("fed");
    out
}

/// The messages of an mbox (mboxo), with their `From ` lines.
fn mbox_messages(bytes: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    let flavor = mailbox::MboxFlavor {
        format: mailbox::MboxFormat::Mboxo,
        crlf: false,
    };
    mailbox::MboxReader::new(bytes, "mbox", flavor)
        .map(|m| {
            let m = m.expect("read");
            let mailbox::Origin::Mbox { from_line, .. } = m.origin else {
                panic!("an mbox message");
            };
            (from_line, m.bytes)
        })
        .collect()
}

/// The (input, index) pairs of `audit --format jsonl ARGS...`.
fn audited(args: &[&std::ffi::OsStr], stdin: &[u8]) -> std::collections::BTreeSet<(String, u64)> {
    let mut all = vec![os("audit"), os("--format"), os("jsonl")];
    all.extend_from_slice(args);
    let o = run_stdin(&all, stdin);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout)
        .expect("utf-8")
        .lines()
        .map(|line| {
            let r: serde_json::Value = serde_json::from_str(line).expect("json");
            (
                r["input"].as_str().expect("input").to_string(),
                r["index"].as_u64().expect("index"),
            )
        })
        .collect()
}

const LATIN1: &[u8] = b"From: a@b.c\nSubject: one\n\
Content-Type: text/plain; charset=iso-8859-1\n\nHello Jos\xe9\n";
const KOI8R: &[u8] = b"From: d@e.f\nSubject: two\n\
Content-Type: text/plain; charset=koi8-r\n\n\xf0\xd2\xc9\xd7\xc5\xd4\n";

/// An mbox whose first `From ` line comes after blank lines (some writers
/// leave them; mutt reads past them) was taken for one message, from a
/// file, standard input or a folder: its messages merged, the second's
/// KOI8-R text decoded as the first's Latin-1, its `From ` line written
/// `=46rom`.
#[test]
fn regression_blank_lines_before_the_first_from_line_keep_an_mbox_an_mbox() {
    let mut mbox = b"\n\nFrom a@b.c Mon Jan  1 00:00:00 2001\n".to_vec();
    mbox.extend_from_slice(LATIN1);
    mbox.extend_from_slice(b"\nFrom d@e.f Tue Jan  2 00:00:00 2001\n");
    mbox.extend_from_slice(KOI8R);
    mbox.extend_from_slice(b"\n");
    let want = [lib_normalize(LATIN1), lib_normalize(KOI8R)];
    let check = |got: &[u8], how: &str| {
        let msgs = mbox_messages(got);
        assert_eq!(msgs.len(), 2, "{how}: {}", String::from_utf8_lossy(got));
        // The blank lines stay before the first `From ` line.
        assert_eq!(
            msgs[0].0, b"\n\nFrom a@b.c Mon Jan  1 00:00:00 2001\n",
            "{how}"
        );
        assert_eq!(msgs[0].1, want[0], "{how}");
        assert_eq!(msgs[1].1, want[1], "{how}");
    };
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("in.mbox");
    std::fs::write(&file, &mbox).expect("w");
    let folder = dir.path().join("folder");
    std::fs::create_dir_all(&folder).expect("mkdir");
    std::fs::write(folder.join("box"), &mbox).expect("w");

    let out = dir.path().join("out.mbox");
    let o = run(&[
        os("normalize"),
        os("-q"),
        file.as_os_str(),
        os("-o"),
        out.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    check(&std::fs::read(&out).expect("written"), "file");
    let o = run_stdin(&[os("normalize"), os("-q"), os("-")], &mbox);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    check(&o.stdout, "standard input");
    let out = dir.path().join("out");
    let o = run(&[
        os("normalize"),
        os("-q"),
        folder.as_os_str(),
        os("-o"),
        out.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    check(&std::fs::read(out.join("box")).expect("written"), "folder");

    assert_eq!(audited(&[file.as_os_str()], b"").len(), 2);
    assert_eq!(audited(&[os("-")], &mbox).len(), 2);
    assert_eq!(audited(&[folder.as_os_str()], b"").len(), 2);
}

/// An mbox from Gmail's Takeout (`From 1583...@xxx Mon Nov 06 04:42:58
/// +0000 2017`: the zone before the year) or with RFC 2822 dates in its
/// envelope lines, kept in a folder (a Takeout's `Mail/`), was not taken
/// for an mbox: its messages merged into one, the second's text decoded
/// with the first's charset.
#[test]
fn regression_takeout_and_rfc2822_envelope_lines_make_a_folder_file_an_mbox() {
    for (first, second) in [
        (
            "From 1583290388308606088@xxx Mon Nov 06 04:42:58 +0000 2017\n",
            "From 1583290388308606089@xxx Tue Nov 07 05:01:00 +0000 2017\n",
        ),
        (
            "From a@b.c Tue, 10 Mar 2009 12:00:00 +0000\n",
            "From d@e.f Wed, 11 Mar 2009 08:30:00 +0100\n",
        ),
    ] {
        let mut mbox = first.as_bytes().to_vec();
        mbox.extend_from_slice(LATIN1);
        mbox.extend_from_slice(b"\n");
        mbox.extend_from_slice(second.as_bytes());
        mbox.extend_from_slice(KOI8R);
        mbox.extend_from_slice(b"\n");
        let dir = tempfile::tempdir().expect("tmp");
        let folder = dir.path().join("Mail");
        std::fs::create_dir_all(&folder).expect("mkdir");
        std::fs::write(folder.join("Inbox.mbox"), &mbox).expect("w");
        let out = dir.path().join("out");
        let o = run(&[
            os("normalize"),
            os("-q"),
            folder.as_os_str(),
            os("-o"),
            out.as_os_str(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let msgs = mbox_messages(&std::fs::read(out.join("Inbox.mbox")).expect("written"));
        assert_eq!(msgs.len(), 2, "{first}");
        assert_eq!(msgs[0].0, first.as_bytes());
        assert_eq!(msgs[1].0, second.as_bytes());
        assert_eq!(msgs[0].1, lib_normalize(LATIN1));
        assert_eq!(msgs[1].1, lib_normalize(KOI8R));
        assert_eq!(audited(&[folder.as_os_str()], b"").len(), 2, "{first}");
    }
}

/// A single message saved with its envelope line (ENVELOPED: a body line
/// `From the desk of José:`, a `>From ` line) given as a file, on
/// standard input or through a pipe was read as an mbox and split at its
/// body line, the second half written back with a made-up header block in
/// the middle of the text; in a folder it was one message. Every way in
/// now reads it as one message, also when it is larger than the 64 KiB
/// a stream is first sniffed on; an mbox whose first message is that
/// large is still an mbox.
#[test]
fn regression_a_message_with_an_envelope_line_is_one_message_every_way_in() {
    let mut big = ENVELOPED.to_vec();
    let at = big.windows(6).position(|w| w == b"Hello ").expect("body");
    let filler = "Lorem ipsum dolor sit amet, consectetur adipiscing elit.\n".repeat(1500);
    big.splice(at..at, filler.bytes());
    assert!(big.len() > 80 << 10);
    let dir = tempfile::tempdir().expect("tmp");
    for (k, msg) in [ENVELOPED.to_vec(), big].iter().enumerate() {
        let want = lib_normalize(msg);
        let file = dir.path().join(format!("m{k}.eml"));
        std::fs::write(&file, msg).expect("w");
        let o = run(&[os("normalize"), os("-q"), file.as_os_str()]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(o.stdout, want, "file {k}");
        let o = run_stdin(&[os("normalize"), os("-q"), os("-")], msg);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(o.stdout, want, "standard input {k}");
        let (pipe, feeder) = fifo(dir.path(), &format!("pipe{k}"), msg.clone());
        let o = run(&[os("normalize"), os("-q"), pipe.as_os_str()]);
        feeder.join().expect("fed");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(o.stdout, want, "pipe {k}");
        let folder = dir.path().join(format!("folder{k}"));
        std::fs::create_dir_all(&folder).expect("mkdir");
        std::fs::write(folder.join("m.eml"), msg).expect("w");
        let out = dir.path().join(format!("out{k}"));
        let report = dir.path().join(format!("report{k}"));
        let o = run(&[
            os("normalize"),
            os("-q"),
            folder.as_os_str(),
            os("-o"),
            out.as_os_str(),
            os("--report"),
            report.as_os_str(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(
            std::fs::read(out.join("m.eml")).expect("written"),
            want,
            "folder {k}"
        );
        assert_eq!(
            std::fs::read_to_string(&report)
                .expect("report")
                .lines()
                .count(),
            1
        );
        assert_eq!(audited(&[file.as_os_str()], b"").len(), 1, "file {k}");
        assert_eq!(audited(&[os("-")], msg).len(), 1, "standard input {k}");
    }
    // An mbox whose first message is larger than the first 64 KiB.
    let mut mbox = b"From a@b.c Mon Jan  1 00:00:00 2001\n".to_vec();
    mbox.extend_from_slice(LATIN1);
    mbox.extend_from_slice(filler.as_bytes());
    mbox.extend_from_slice(b"\nFrom d@e.f Tue Jan  2 00:00:00 2001\n");
    mbox.extend_from_slice(KOI8R);
    let file = dir.path().join("big.mbox");
    std::fs::write(&file, &mbox).expect("w");
    let o = run(&[os("normalize"), os("-q"), file.as_os_str()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(mbox_messages(&o.stdout).len(), 2);
    let o = run_stdin(&[os("normalize"), os("-q"), os("-")], &mbox);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(mbox_messages(&o.stdout).len(), 2);
    assert_eq!(audited(&[os("-")], &mbox).len(), 2);
}

/// Files that are not mail, kept in a mail folder or Maildir (notes, a
/// configuration file): `audit` passed over them, `normalize` read each
/// as a message with no header and rewrote it, inserting `MIME-Version`
/// and `Content-Type` fields after its first paragraph and encoding the
/// rest in base64, in the output and in place.
#[test]
fn regression_files_that_are_not_mail_are_kept_byte_for_byte() {
    let notes: &[u8] = b"Caf\xe9 list\nsecond line\n\nK\xe4se und Br\xf6tchen\n";
    let conf: &[u8] = b"# Gener\xe9\n\nx \xe9\n";
    let dir = tempfile::tempdir().expect("tmp");
    let folder = dir.path().join("Mail");
    std::fs::create_dir_all(&folder).expect("mkdir");
    std::fs::write(folder.join("notes.txt"), notes).expect("w");
    std::fs::write(folder.join("a.conf"), conf).expect("w");
    std::fs::write(folder.join("m.eml"), LATIN1).expect("w");
    let md = dir.path().join("md");
    for d in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(md.join(d)).expect("mkdir");
    }
    std::fs::write(md.join("cur/1.host:2,S"), notes).expect("w");
    std::fs::write(md.join("new/2.host"), LATIN1).expect("w");
    for (input, files) in [
        (&folder, [("notes.txt", notes), ("a.conf", conf)].as_slice()),
        (&md, [("cur/1.host:2,S", notes)].as_slice()),
    ] {
        let out = dir.path().join("out");
        let report = dir.path().join("report");
        let o = run(&[
            os("normalize"),
            os("-q"),
            input.as_os_str(),
            os("-o"),
            out.as_os_str(),
            os("--report"),
            report.as_os_str(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        for (name, bytes) in files {
            assert_eq!(
                &std::fs::read(out.join(name)).expect("written"),
                bytes,
                "{name}"
            );
        }
        // The mail beside them is normalized; one report line per file.
        let report = std::fs::read_to_string(&report).expect("report");
        assert_eq!(report.lines().count(), files.len() + 1, "{report}");
        assert!(report.contains("does not start like a message"), "{report}");
        std::fs::remove_dir_all(&out).expect("rm");
        let o = run(&[
            os("normalize"),
            os("-q"),
            os("--in-place"),
            input.as_os_str(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        for (name, bytes) in files {
            assert_eq!(
                &std::fs::read(input.join(name)).expect("there"),
                bytes,
                "{name}"
            );
        }
    }
    assert_eq!(
        std::fs::read(folder.join("m.eml")).expect("there"),
        lib_normalize(LATIN1)
    );
}

/// A small Maildir at `root` with one Latin-1 message in `cur/`.
fn latin1_maildir(root: &Path) {
    for d in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(root.join(d)).expect("mkdir");
    }
    std::fs::write(root.join("cur/1.host:2,S"), LATIN1).expect("write");
}

/// Every file under `dir`, with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut v: Vec<_> = crate::common::files_under(dir, &|_| true)
        .into_iter()
        .map(|p| {
            let b = std::fs::read(&p).expect("read");
            (p, b)
        })
        .collect();
    v.sort();
    v
}

#[test]
fn regression_a_directory_output_never_replaces_a_directory_that_is_not_its_own() {
    // A directory output is built beside its destination and swapped in
    // whole: `-o` naming a directory that held the user's files deleted
    // them (exit 0), `-o` the input's parent deleted the input, and `-o`
    // inside the input replaced part of it.
    let dir = tempfile::tempdir().expect("tmp");
    let input = dir.path().join("Mail/inbox");
    latin1_maildir(&input);
    std::fs::write(dir.path().join("Mail/notes.txt"), b"notes").expect("write");
    let docs = dir.path().join("Documents");
    std::fs::create_dir_all(docs.join("photos")).expect("mkdir");
    std::fs::write(docs.join("thesis.txt"), b"thesis").expect("write");
    let before_mail = snapshot(&dir.path().join("Mail"));
    let before_docs = snapshot(&docs);
    for (out, says) in [
        (docs.clone(), "is not an earlier output"),
        (dir.path().join("Mail"), "holds the input"),
        (input.join("cur"), "is inside the input"),
    ] {
        let o = run(&[
            os("normalize"),
            os("-q"),
            input.as_os_str(),
            os("-o"),
            out.as_os_str(),
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(74), "{}: {err}", out.display());
        assert!(err.contains(says), "{}: {err}", out.display());
        assert_eq!(
            snapshot(&dir.path().join("Mail")),
            before_mail,
            "{}",
            out.display()
        );
        assert_eq!(snapshot(&docs), before_docs, "{}", out.display());
    }
    // An empty directory, and an earlier output, are written (the second
    // run replaces the first's output: it carries the marker).
    let out = dir.path().join("out");
    std::fs::create_dir(&out).expect("mkdir");
    for round in 0..2 {
        let o = run(&[
            os("normalize"),
            os("-q"),
            input.as_os_str(),
            os("-o"),
            out.as_os_str(),
        ]);
        assert!(
            o.status.success(),
            "round {round}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(out.join(mailbox::OUTPUT_MARKER).is_file());
        assert_eq!(
            std::fs::read(out.join("cur/1.host:2,S")).expect("written"),
            lib_normalize(LATIN1)
        );
    }
}

#[test]
fn regression_a_report_is_never_written_over_an_input_or_the_output() {
    // `--report` and `audit -o` naming the mailbox overwrote it with JSON
    // lines (exit 0), in place or not; naming a message of a Maildir
    // normalized in place overwrote that message.
    let dir = tempfile::tempdir().expect("tmp");
    let m = mbox(dir.path());
    let md = dir.path().join("md");
    latin1_maildir(&md);
    let msg = md.join("cur/1.host:2,S");
    let out = dir.path().join("out.mbox");
    let before = (std::fs::read(&m).expect("read"), snapshot(&md));
    let runs: Vec<Vec<&std::ffi::OsStr>> = vec![
        vec![
            os("normalize"),
            os("--in-place"),
            m.as_os_str(),
            os("--report"),
            m.as_os_str(),
        ],
        vec![
            os("normalize"),
            m.as_os_str(),
            os("-o"),
            out.as_os_str(),
            os("--report"),
            m.as_os_str(),
        ],
        vec![
            os("normalize"),
            m.as_os_str(),
            os("-o"),
            out.as_os_str(),
            os("--report"),
            out.as_os_str(),
        ],
        vec![os("audit"), m.as_os_str(), os("-o"), m.as_os_str()],
        vec![
            os("normalize"),
            os("--in-place"),
            md.as_os_str(),
            os("--report"),
            msg.as_os_str(),
        ],
        vec![os("audit"), md.as_os_str(), os("-o"), msg.as_os_str()],
    ];
    for mut args in runs {
        args.insert(1, os("-q"));
        let o = run(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(74), "{args:?}: {err}");
        assert!(err.contains("nothing written"), "{args:?}: {err}");
        assert_eq!(
            (std::fs::read(&m).expect("read"), snapshot(&md)),
            before,
            "{args:?}"
        );
        assert!(!out.exists(), "{args:?}");
    }
}

#[test]
fn regression_a_file_that_is_not_mail_is_kept_whichever_way_it_comes_in() {
    // In a folder such a file was kept byte for byte, but named on its own
    // (a shell glob, `--in-place`) or piped in it was read as a message: a
    // line end put before it, or the whole file made the quoted-printable
    // body of a made-up message (a gzip'd mbox no longer decompressed, an
    // Emacs RMAIL file was gone). audit lists it as skipped, as in a folder.
    let dir = tempfile::tempdir().expect("tmp");
    let files: [(&str, &[u8]); 3] = [
        ("img.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x02\0\0\0"),
        // A gzip file whose text is not mail (`hello world`): audit reads
        // it decompressed (doc/mailbox.md, "Compressed inputs") and passes
        // over what it holds.
        (
            "box.mbox.gz",
            b"\x1f\x8b\x08\0\0\0\0\0\x02\x03\xcb\x48\xcd\xc9\xc9\x57\x28\xcf\x2f\xca\x49\xe1\x02\0\x2d\x3b\x08\xaf\x0c\0\0\0",
        ),
        (
            "RMAIL",
            b"BABYL OPTIONS: -*- rmail -*-\nVersion: 5\n\x1f\x0c\n1,,\nSubject: caf\xe9\n\nbody\n\x1f",
        ),
    ];
    for (name, bytes) in files {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).expect("write");
        let out = dir.path().join(format!("{name}.out"));
        let o = run(&[
            os("normalize"),
            os("-q"),
            p.as_os_str(),
            os("-o"),
            out.as_os_str(),
        ]);
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(std::fs::read(&out).expect("out"), bytes, "{name} -o");
        let o = run(&[os("normalize"), os("-q"), os("--in-place"), p.as_os_str()]);
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(
            std::fs::read(&p).expect("in place"),
            bytes,
            "{name} --in-place"
        );
        let o = run_stdin(&[os("normalize"), os("-q")], bytes);
        assert!(o.status.success(), "{name}");
        assert_eq!(o.stdout, bytes, "{name} piped");
        let o = run(&[os("audit"), os("--format"), os("jsonl"), p.as_os_str()]);
        assert!(o.status.success(), "{name}");
        assert!(
            o.stdout.is_empty(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stdout)
        );
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("does not start like a message"),
            "{name}"
        );
    }
}

/// One more message, as an MDA appends it to an mbox.
const DELIVERED: &[u8] = b"From new@example.com Mon Jan  1 00:00:00 2001\nFrom: new@example.com\n\
Subject: delivered during the run\nMessage-ID: <delivered@example.com>\n\
Content-Type: text/plain; charset=iso-8859-1\n\ncaf\xe9\n\n";

fn append(path: &Path, bytes: &[u8]) {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .expect("open for append");
    f.write_all(bytes).expect("append");
}

#[test]
fn regression_in_place_on_an_mbox_holds_the_dotlock_and_waits_for_anothers() {
    // An in-place run took no lock at all: a message an MDA appended after
    // the run had read the mbox to its end went into the old file, which
    // the rename unlinked (exit 0). Now the run takes NAME.lock, as MDAs
    // do, before it reads; a lock another program holds is waited for,
    // never taken or removed.
    let dir = tempfile::tempdir().expect("tmp");
    let input = mbox(dir.path());
    let original = std::fs::read(&input).expect("read");
    let lock = mailbox::lock_path(&input);
    std::fs::write(&lock, b"4242\n").expect("the MDA's lock");
    let mut child = Command::new(bin())
        .args([
            os("normalize"),
            os("-q"),
            os("--in-place"),
            input.as_os_str(),
        ])
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert!(
        child.try_wait().expect("wait").is_none(),
        "the run waits for the lock"
    );
    assert_eq!(
        std::fs::read(&input).expect("input"),
        original,
        "not yet written"
    );
    assert_eq!(
        std::fs::read(&lock).expect("lock"),
        b"4242\n",
        "the lock is not taken"
    );
    // The MDA delivers under its lock and lets go.
    append(&input, DELIVERED);
    std::fs::remove_file(&lock).expect("unlock");
    let o = child.wait_with_output().expect("wait");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let after = std::fs::read(&input).expect("input");
    assert_ne!(after, original, "normalized");
    assert!(
        memchr::memmem::find(&after, b"<delivered@example.com>").is_some(),
        "the message delivered before the run read the mbox is in it"
    );
    assert!(!lock.exists(), "the run's own lock is removed");

    // A lock that stays is given up on: the library's wait, shortened.
    std::fs::write(&lock, b"4242\n").expect("the MDA's lock");
    let e = mailbox::DotLock::acquire(&input, std::time::Duration::from_millis(300))
        .expect_err("locked");
    assert!(matches!(e, mailbox::MailboxError::Locked { .. }), "{e}");
    assert_eq!(std::fs::read(&lock).expect("lock"), b"4242\n", "left alone");
    std::fs::remove_file(&lock).expect("unlock");
    let held = mailbox::DotLock::acquire(&input, std::time::Duration::ZERO).expect("free");
    assert!(lock.exists());
    drop(held);
    assert!(!lock.exists());
}

#[test]
fn regression_in_place_leaves_an_input_that_changed_during_the_run() {
    // A writer that ignores the dotlock (flock only) appended while the run
    // was writing: the rename used to drop that message with the old file.
    use mailbox::{FileStamp, MessageReader, MessageWriter, OutputKind, WriteMode};
    let dir = tempfile::tempdir().expect("tmp");
    let input = mbox(dir.path());
    let original = std::fs::read(&input).expect("read");
    let stamp = FileStamp::of(&input).expect("stamp");
    let kind = mailbox::detect(&input).expect("detect");
    let reader = MessageReader::open(&input, kind).expect("open");
    let mut w = MessageWriter::create(&input, OutputKind::matching(kind), WriteMode::InPlace)
        .expect("writer");
    w.expect_unchanged(stamp);
    for m in reader {
        let m = m.expect("message");
        w.write(&m, &lib_normalize(&m.bytes)).expect("write");
    }
    assert!(w.check_unchanged().is_ok(), "nothing happened yet");
    append(&input, DELIVERED);
    assert!(matches!(
        w.check_unchanged(),
        Err(mailbox::MailboxError::Changed { .. })
    ));
    let e = w.finish().expect_err("changed");
    assert!(matches!(e, mailbox::MailboxError::Changed { .. }), "{e}");
    let mut want = original.clone();
    want.extend_from_slice(DELIVERED);
    assert_eq!(std::fs::read(&input).expect("input"), want, "left as it is");
    assert_eq!(
        crate::common::temporaries(dir.path()),
        Vec::<PathBuf>::new(),
        "no temporary left"
    );
    assert!(!mailbox::backup_path(&input).exists(), "no backup left");

    // Unchanged: put in place.
    let stamp = FileStamp::of(&input).expect("stamp");
    let reader = MessageReader::open(&input, kind).expect("open");
    let mut w = MessageWriter::create(&input, OutputKind::matching(kind), WriteMode::InPlace)
        .expect("writer");
    w.expect_unchanged(stamp);
    for m in reader {
        let m = m.expect("message");
        w.write(&m, &lib_normalize(&m.bytes)).expect("write");
    }
    assert_eq!(w.finish_late().expect("in place"), 0);
    assert_ne!(std::fs::read(&input).expect("input"), want);
}

#[test]
fn regression_in_place_a_message_moved_or_deleted_during_the_run_is_not_written_back() {
    // The writer looked (`is_file`) and then renamed its temporary over the
    // name: a server's rename `X:2,` -> `X:2,S` (or a delete) in between
    // left a duplicate (or brought the message back). The race itself is
    // pinned by the unit tests of mailbox::replace (the swap and the
    // portable pin); here, the writer says what it left alone, and the run
    // asks to be run again.
    use mailbox::{MessageReader, MessageWriter, OutputKind, WriteMode};
    let dir = tempfile::tempdir().expect("tmp");
    let md = dir.path().join("md");
    latin1_maildir(&md);
    std::fs::write(md.join("cur/2.host:2,"), LATIN1).expect("write");
    std::fs::write(md.join("cur/3.host:2,"), LATIN1).expect("write");
    let reader = MessageReader::open(&md, mailbox::InputKind::Maildir).expect("open");
    let mut w =
        MessageWriter::create(&md, OutputKind::Maildir, WriteMode::InPlace).expect("writer");
    let msgs: Vec<_> = reader.map(|m| m.expect("message")).collect();
    assert_eq!(msgs.len(), 3);
    // Read; then the server sets \Seen on 2 and the user deletes 3.
    std::fs::rename(md.join("cur/2.host:2,"), md.join("cur/2.host:2,S")).expect("mv");
    std::fs::remove_file(md.join("cur/3.host:2,")).expect("rm");
    for m in &msgs {
        w.write(m, &lib_normalize(&m.bytes)).expect("write");
    }
    let (notes, retry) = w.in_place_notes();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(retry);
    w.finish().expect("finish");
    let names = crate::common::entry_names(&md.join("cur"));
    assert_eq!(
        names,
        ["1.host:2,S", "2.host:2,S"],
        "no duplicate, nothing back"
    );
    assert_eq!(
        std::fs::read(md.join("cur/2.host:2,S")).expect("read"),
        LATIN1,
        "the moved one as the server left it"
    );
    assert_ne!(
        std::fs::read(md.join("cur/1.host:2,S")).expect("read"),
        LATIN1
    );
}

#[test]
fn regression_maildir_size_tags_follow_the_rewritten_content() {
    // A rewritten message kept `S=164,W=172` in its name while it was 191
    // octets, with -o and in place; Dovecot and Courier read sizes and
    // quotas from these.
    let dir = tempfile::tempdir().expect("tmp");
    let md = dir.path().join("md");
    latin1_maildir(&md);
    let stale = "1700000000.M1P1.host,S=1,X=keep,W=2:2,FS";
    std::fs::rename(md.join("cur/1.host:2,S"), md.join("cur").join(stale)).expect("mv");
    let check = |cur: &Path| {
        let names = crate::common::entry_names(cur);
        assert_eq!(names.len(), 1, "{names:?}");
        let bytes = std::fs::read(cur.join(&names[0])).expect("read");
        assert_ne!(bytes, LATIN1, "rewritten");
        let lf = bytes.iter().filter(|&&b| b == b'\n').count();
        let crlf = bytes.windows(2).filter(|w| w == b"\r\n").count();
        let want = format!(
            "1700000000.M1P1.host,S={},X=keep,W={}:2,FS",
            bytes.len(),
            bytes.len() + lf - crlf
        );
        assert_eq!(names[0], want);
    };
    let out = dir.path().join("out");
    let o = run(&[
        os("normalize"),
        os("-q"),
        md.as_os_str(),
        os("-o"),
        out.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    check(&out.join("cur"));
    let o = run(&[os("normalize"), os("-q"), os("--in-place"), md.as_os_str()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    check(&md.join("cur"));
}

#[test]
fn regression_on_error_fail_to_standard_output_stops_at_the_failing_message() {
    // It said "(output stopped there)" and exited 65, but the failing
    // message (unchanged) and every one after it had been written.
    let dir = tempfile::tempdir().expect("tmp");
    let input = dir.path().join("in.mbox");
    let msg = |subject: &str, charset: &str, body: &[u8]| {
        let mut m = format!(
            "From a@b Mon Jan  1 00:00:00 2001\nSubject: {subject}\n\
             Content-Type: text/plain; charset={charset}\n\n"
        )
        .into_bytes();
        m.extend_from_slice(body);
        m.extend_from_slice(b"\n\n");
        m
    };
    let mut bytes = msg("one", "koi8-r", b"\xf0\xd2\xc9");
    bytes.extend(msg("two (damaged)", "utf-8", b"caf\xc3 x"));
    bytes.extend(msg("three", "koi8-r", b"\xf0\xd2\xc9"));
    std::fs::write(&input, &bytes).expect("write");
    for jobs in ["1", "4"] {
        let o = run(&[
            os("normalize"),
            os("-q"),
            os("--jobs"),
            os(jobs),
            os("--on-error"),
            os("fail"),
            input.as_os_str(),
        ]);
        assert_eq!(
            o.status.code(),
            Some(65),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(out.matches("From a@b").count(), 1, "{out}");
        assert!(out.contains("Subject: one"));
        assert!(!out.contains("Subject: two") && !out.contains("Subject: three"));
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("the 1 message(s) before it were written")
        );
    }
}

/// Runs the binary with `args`, reads `keep` octets of its standard output
/// and closes it (as `| head -c` does); its status and standard error.
fn read_then_close(args: &[&std::ffi::OsStr], keep: usize) -> (Option<i32>, String) {
    use std::io::Read;
    let mut child = Command::new(bin())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut out = child.stdout.take().expect("stdout");
    let mut buf = vec![0; keep];
    out.read_exact(&mut buf).expect("the first octets");
    drop(out);
    let o = child.wait_with_output().expect("wait");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn regression_a_reader_that_goes_away_is_not_taken_for_a_complete_normalize() {
    // `normalize big.mbox | head -c 1000000` delivered 983 of 60,000
    // messages and exited 0 with nothing on stderr.
    let dir = tempfile::tempdir().expect("tmp");
    let one = std::fs::read(mbox(dir.path())).expect("read");
    let big = dir.path().join("big.mbox");
    let mut bytes = Vec::new();
    while bytes.len() < 4 << 20 {
        bytes.extend_from_slice(&one);
    }
    std::fs::write(&big, &bytes).expect("write");
    let (code, err) = read_then_close(&[os("normalize"), os("-q"), big.as_os_str()], 1000);
    assert_eq!(code, Some(74), "{err}");
    assert!(err.contains("broken pipe"), "{err}");
    assert!(err.contains("message(s) were written whole"), "{err}");

    // audit's report is read by a person: `audit | head` is what they
    // asked for (quiet, 0), unless --fail-on's answer is lost with it.
    let (code, err) = read_then_close(
        &[
            os("audit"),
            os("-q"),
            os("--format"),
            os("jsonl"),
            big.as_os_str(),
        ],
        100,
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(err.is_empty(), "{err}");
    let clean = dir.path().join("clean.mbox");
    let mut bytes = Vec::new();
    for i in 0..40_000 {
        bytes.extend_from_slice(
            format!("From a@b Mon Jan  1 00:00:00 2001\nSubject: {i}\n\nplain text\n\n").as_bytes(),
        );
    }
    std::fs::write(&clean, &bytes).expect("write");
    let (code, err) = read_then_close(
        &[
            os("audit"),
            os("-q"),
            os("--format"),
            os("jsonl"),
            os("--fail-on"),
            os("invalid"),
            clean.as_os_str(),
        ],
        100,
    );
    assert_eq!(code, Some(74), "{err}");
    assert!(err.contains("--fail-on"), "{err}");
}

#[test]
fn regression_small_cli_issues_around_outputs_and_odd_inputs() {
    let dir = tempfile::tempdir().expect("tmp");
    let msg = dir.path().join("m.eml");
    std::fs::write(&msg, LATIN1).expect("write");
    let in_dir = |cwd: &Path, args: &[&std::ffi::OsStr]| {
        Command::new(bin())
            .current_dir(cwd)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("runs")
    };

    // a) An output or report whose directory does not exist: 74 (not
    // "no input", 66), naming the path given, not a hidden temporary.
    for args in [
        vec![
            os("normalize"),
            os("-q"),
            msg.as_os_str(),
            os("-o"),
            os("nodir/x.eml"),
        ],
        vec![
            os("normalize"),
            os("-q"),
            msg.as_os_str(),
            os("-o"),
            os("x.eml"),
            os("--report"),
            os("nodir/r.jsonl"),
        ],
    ] {
        let o = in_dir(dir.path(), &args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(74), "{err}");
        assert!(
            err.contains("nodir/") && err.contains("does not exist"),
            "{err}"
        );
        assert!(!err.contains("mailcharset-tmp"), "{err}");
    }

    // b) A directory output that cannot be swapped into place: refused up
    // front, nothing left behind (it failed with EBUSY at the end and left
    // a hidden full copy of the tree).
    let md = dir.path().join("md");
    latin1_maildir(&md);
    let cwd = dir.path().join("cwd");
    std::fs::create_dir(&cwd).expect("mkdir");
    for out in [os("."), cwd.as_os_str()] {
        let o = in_dir(
            &cwd,
            &[os("normalize"), os("-q"), md.as_os_str(), os("-o"), out],
        );
        assert_eq!(
            o.status.code(),
            Some(74),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(crate::common::entry_names(&cwd), Vec::<String>::new());
        assert_eq!(
            crate::common::entry_names(dir.path()).len(),
            3,
            "nothing beside it"
        );
    }

    // c) FIFOs and sockets in a folder are listed as skipped, and count
    // for --strict-inputs.
    let fo = dir.path().join("fo");
    std::fs::create_dir(&fo).expect("mkdir");
    std::fs::write(fo.join("a.eml"), LATIN1).expect("write");
    assert!(
        Command::new("mkfifo")
            .arg(fo.join("pipe"))
            .status()
            .expect("mkfifo")
            .success()
    );
    let _sock = std::os::unix::net::UnixListener::bind(fo.join("sock")).expect("bind");
    let fout = dir.path().join("fout");
    let o = run(&[
        os("normalize"),
        os("--strict-inputs"),
        fo.as_os_str(),
        os("-o"),
        fout.as_os_str(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(66), "{err}");
    assert!(
        err.contains("pipe (not a regular file") && err.contains("sock (not a regular file"),
        "{err}"
    );

    // d) --in-place on a pipe: refused, by its name.
    let o = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "exec '{}' normalize -q --in-place <(cat '{}')",
            bin(),
            msg.display()
        ))
        .output()
        .expect("bash");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(64), "{err}");
    assert!(
        err.contains("pipe, socket or device") && !err.contains(".bak"),
        "{err}"
    );

    // f) Standard input among several inputs: a usage error (it was
    // written as a file named `-` under the output directory).
    let o = in_dir(
        dir.path(),
        &[
            os("normalize"),
            os("-q"),
            os("-"),
            msg.as_os_str(),
            os("-o"),
            os("multi"),
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(64),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!dir.path().join("multi").exists());
}

#[test]
fn regression_one_unreadable_message_file_does_not_end_the_run() {
    // One message file that could not be read (a root-owned file; here a
    // link to /proc/self/mem, which no one, root included, reads from its
    // start) ended the whole run with 74: nothing written for the others
    // with -o, audit stopped, --in-place stopped partway. Now audit and
    // in place go on and list it, exit 74 at the end; -o lists it and
    // still puts no output in place (it would silently lack the message).
    let dir = tempfile::tempdir().expect("tmp");
    let md = dir.path().join("md");
    latin1_maildir(&md);
    for i in 2..=4 {
        std::fs::write(md.join(format!("cur/{i}.host:2,S")), LATIN1).expect("write");
    }
    let bad = md.join("cur/2b.host:2,S");
    std::os::unix::fs::symlink("/proc/self/mem", &bad).expect("ln");
    let bad_name = bad.display().to_string();

    let out = dir.path().join("out");
    let o = run(&[
        os("normalize"),
        os("-q"),
        md.as_os_str(),
        os("-o"),
        out.as_os_str(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(74), "{err}");
    assert!(
        err.contains(&bad_name) && err.contains("no output written"),
        "{err}"
    );
    assert!(!out.exists());

    let o = run(&[
        os("audit"),
        os("-q"),
        os("--format"),
        os("jsonl"),
        md.as_os_str(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(74), "{err}");
    assert!(err.contains(&bad_name), "{err}");
    let audited: std::collections::BTreeSet<String> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["input"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(audited.len(), 4, "every other message audited: {audited:?}");

    let o = run(&[os("normalize"), os("-q"), os("--in-place"), md.as_os_str()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(74), "{err}");
    assert!(err.contains(&bad_name), "{err}");
    for i in 1..=4 {
        let p = md.join(format!("cur/{i}.host:2,S"));
        assert_ne!(
            std::fs::read(&p).expect("read"),
            LATIN1,
            "{} normalized",
            p.display()
        );
    }
    assert!(std::fs::symlink_metadata(&bad).is_ok_and(|m| m.file_type().is_symlink()));
}

#[test]
fn regression_an_eight_bit_field_name_keeps_the_header_a_header() {
    // `X-Café:` as the first line was taken for the start of the body:
    // filter and normalize turned the whole header (From, To, Subject)
    // into quoted-printable body text of a message with no header.
    // A field name with 8-bit octets whose value is rewritten keeps its
    // name's octets (they were U+FFFD).
    let msg: &[u8] = b"X-Caf\xc3\xa9: oui\nFrom: a@b.c\nTo: d@e.f\nSubject: caf\xe9\n\
        X-Gr\xfc\xdfe: gr\xfc\xdf\nContent-Type: text/plain; charset=iso-8859-1\n\nD\xe9j\xe0 vu\n";
    let o = run_stdin(&[os("filter")], msg);
    assert!(o.status.success());
    let out = o.stdout;
    let head_end = out
        .windows(2)
        .position(|w| w == b"\n\n")
        .expect("a header and a body");
    let head = &out[..head_end];
    for field in [
        &b"X-Caf\xc3\xa9: oui\n"[..],
        b"From: a@b.c\n",
        b"To: d@e.f\n",
    ] {
        assert!(
            head.windows(field.len()).any(|w| w == field),
            "{}",
            String::from_utf8_lossy(&out)
        );
    }
    assert!(String::from_utf8_lossy(head).contains("Subject: =?UTF-8?"));
    assert!(
        head.windows(17).any(|w| w == b"X-Gr\xfc\xdfe: =?UTF-8?"),
        "{}",
        String::from_utf8_lossy(head)
    );
    assert_eq!(out, lib_normalize(msg));
}

#[test]
fn regression_with_several_inputs_no_output_lands_in_or_around_another_input() {
    // Each output was checked against its own input only, when its turn
    // came: `normalize inbox d -o d` (`d` holding `d/inbox`) replaced
    // d/inbox with the top-level inbox, and only then refused d/d. Every
    // output is now checked against every input before anything is
    // written.
    let dir = tempfile::tempdir().expect("tmp");
    let cwd = dir.path();
    let in_dir = |args: &[&str]| {
        Command::new(bin())
            .current_dir(cwd)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("runs")
    };
    let kept = b"From a@b Mon Jan  1 00:00:00 2001\nSubject: keep me\n\nprecious\n\n";
    std::fs::create_dir(cwd.join("d")).expect("mkdir");
    std::fs::write(cwd.join("d/inbox"), kept).expect("write");
    let mut top = b"From x@y Mon Jan  1 00:00:00 2001\n".to_vec();
    top.extend_from_slice(LATIN1);
    top.extend_from_slice(b"\n");
    std::fs::write(cwd.join("inbox"), &top).expect("write");
    latin1_maildir(&cwd.join("md"));
    std::fs::write(cwd.join("m.eml"), LATIN1).expect("write");
    std::fs::create_dir_all(cwd.join("x/a")).expect("mkdir");
    std::fs::write(cwd.join("x/a/1.eml"), LATIN1).expect("write");
    std::fs::create_dir_all(cwd.join("out/a")).expect("mkdir");
    std::fs::write(cwd.join("out/a/inner.eml"), LATIN1).expect("write");
    let before = snapshot(cwd);
    for (args, relation) in [
        // The top-level inbox's output is d/inbox, inside the input d.
        (
            &["inbox", "d", "-o", "d"][..],
            "d/inbox: is inside the input d",
        ),
        // An output inside another input Maildir's new/.
        (
            &["m.eml", "md", "-o", "md/new"][..],
            "is inside the input md",
        ),
        // out/a replaced whole would take the input out/a/inner.eml with it.
        (
            &["x/a", "out/a/inner.eml", "-o", "out"][..],
            "out/a: holds the input out/a/inner.eml",
        ),
    ] {
        let mut full = vec!["normalize", "-q"];
        full.extend_from_slice(args);
        let o = in_dir(&full);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(74), "{args:?}: {err}");
        assert!(err.contains(relation), "{args:?}: {err}");
        assert!(!err.contains("completed before this"), "{args:?}: {err}");
        assert_eq!(snapshot(cwd), before, "{args:?}: nothing written");
        assert!(!cwd.join("d/d").exists() && !cwd.join("md/new/md").exists());
    }
}

#[test]
fn regression_a_folders_mbox_is_not_read_halfway_through_a_delivery() {
    // In place on a folder, its mbox files were read without the dotlock:
    // an MDA holding inbox.lock that had written half a message had that
    // half normalized, then the rest appended raw after it, one message
    // damaged for good (exit 75, "whole messages appended"). The file is
    // now read under its dotlock, so the run waits for the delivery; and
    // the MDA's lock file beside it is not read as a message of the folder
    // (it vanished, and the run exited 75 for it).
    let dir = tempfile::tempdir().expect("tmp");
    let folder = dir.path().join("F");
    std::fs::create_dir(&folder).expect("mkdir");
    let inbox = folder.join("inbox");
    std::fs::write(
        &inbox,
        b"From a@b Mon Jan  1 00:00:00 2001\nSubject: one\n\nhello\n\n\
          From a@b Mon Jan  1 00:00:01 2001\nSubject: two\n\nworld\n\n",
    )
    .expect("write");
    let lock = mailbox::lock_path(&inbox);
    std::fs::write(&lock, b"4242\n").expect("the MDA's lock");
    append(
        &inbox,
        b"From mda@x Mon Jan  1 00:00:02 2001\nSubject: three\nMIME-Version: 1.0\n\
          Content-Type: text/plain; charset=iso-8859-1\nContent-Transfer-Encoding: 8bit\n\n\
          Premi\xe8re ligne caf\xe9\n",
    );
    let child = Command::new(bin())
        .args([
            os("normalize"),
            os("-q"),
            os("--in-place"),
            folder.as_os_str(),
        ])
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    append(&inbox, b"Deuxi\xe8me ligne d\xe9j\xe0 vu\n\n");
    std::fs::remove_file(&lock).expect("unlock");
    let o = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let after = std::fs::read(&inbox).expect("read");
    let msgs = mbox_messages(&after);
    assert_eq!(msgs.len(), 3, "{}", String::from_utf8_lossy(&after));
    let third = lib_normalize(&msgs[2].1);
    assert_eq!(third, msgs[2].1, "the third message normalized whole");
    assert!(
        !after.iter().any(|&b| b >= 0x80),
        "no raw Latin-1 left after a normalized half"
    );
    assert!(!lock.exists());
}

/// The one file under `dir` and whether its name's S= and W= tags are
/// those of its content (`S=` octets, `W=` octets plus bare line feeds).
fn size_tags_right(dir: &Path) -> (String, bool) {
    let names = crate::common::entry_names(dir);
    assert_eq!(names.len(), 1, "{names:?}");
    let bytes = std::fs::read(dir.join(&names[0])).expect("read");
    let lf = bytes.iter().filter(|&&b| b == b'\n').count();
    let crlf = bytes.windows(2).filter(|w| w == b"\r\n").count();
    let s = format!(",S={},", bytes.len());
    let w = format!(",W={}:", bytes.len() + lf - crlf);
    let right = names[0].contains(&s) && names[0].contains(&w);
    (names[0].clone(), right)
}

#[test]
fn regression_size_tags_follow_the_content_in_a_maildir_inside_a_folder() {
    // The tags were brought up to date only for messages of a Maildir
    // input: a Maildir inside a folder (mbox files and Maildirs side by
    // side), whose files are read one by one, kept S=74,W=78 on a message
    // of 132 octets, with -o and in place.
    let dir = tempfile::tempdir().expect("tmp");
    let folder = dir.path().join("F");
    latin1_maildir(&folder.join("lists"));
    std::fs::rename(
        folder.join("lists/cur/1.host:2,S"),
        folder.join("lists/cur/1700000000.M1P1.host,S=74,W=78:2,S"),
    )
    .expect("mv");
    std::fs::write(
        folder.join("inbox"),
        b"From a@b Mon Jan  1 00:00:00 2001\nSubject: x\n\ny\n\n",
    )
    .expect("write");
    let out = dir.path().join("out");
    let o = run(&[
        os("normalize"),
        os("-q"),
        folder.as_os_str(),
        os("-o"),
        out.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (name, right) = size_tags_right(&out.join("lists/cur"));
    assert!(right, "-o: {name}");
    let o = run(&[
        os("normalize"),
        os("-q"),
        os("--in-place"),
        folder.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (name, right) = size_tags_right(&folder.join("lists/cur"));
    assert!(right, "in place: {name}");
    assert!(name.starts_with("1700000000.M1P1.host,S=") && name.ends_with(":2,S"));
}

#[test]
fn regression_stale_size_tags_of_a_message_already_normalized_are_put_right() {
    // A message normalized by an earlier version kept the tags of its old
    // size (S=74,W=78 on 132 octets), and re-runs kept them: the tags were
    // looked at only when the content changed, and normalize does not
    // change it twice. A tag wrong for the content is now put right, by a
    // rename of the unchanged file (in place) or in the output's name.
    let dir = tempfile::tempdir().expect("tmp");
    let md = dir.path().join("md");
    latin1_maildir(&md);
    std::fs::remove_file(md.join("cur/1.host:2,S")).expect("rm");
    let normalized = lib_normalize(LATIN1);
    let stale = md.join("cur/1700000000.M1P1.host,S=74,W=78:2,S");
    std::fs::write(&stale, &normalized).expect("write");
    let out = dir.path().join("out");
    let o = run(&[
        os("normalize"),
        os("-q"),
        md.as_os_str(),
        os("-o"),
        out.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (name, right) = size_tags_right(&out.join("cur"));
    assert!(right, "-o: {name}");
    let o = run(&[os("normalize"), os("-q"), os("--in-place"), md.as_os_str()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (name, right) = size_tags_right(&md.join("cur"));
    assert!(right, "in place: {name}");
    assert_eq!(
        std::fs::read(md.join("cur").join(&name)).expect("read"),
        normalized,
        "the content as it was"
    );
    // Right tags, or none: the name is left alone.
    let o = run(&[os("normalize"), os("-q"), os("--in-place"), md.as_os_str()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(crate::common::entry_names(&md.join("cur")), [name]);
}

#[test]
fn regression_a_report_is_not_put_in_place_for_an_output_that_was_not() {
    // With -o and a message file that could not be read, no output was
    // written (74), but the --report was put in place describing changed
    // messages, and the output was listed among those completed.
    let dir = tempfile::tempdir().expect("tmp");
    let md = dir.path().join("md");
    latin1_maildir(&md);
    std::os::unix::fs::symlink("/proc/self/mem", md.join("cur/2.host:2,S")).expect("ln");
    let report = dir.path().join("r.jsonl");
    std::fs::write(&report, b"the last run's report\n").expect("write");
    let out = dir.path().join("out");
    let o = run(&[
        os("normalize"),
        os("-q"),
        md.as_os_str(),
        os("-o"),
        out.as_os_str(),
        os("--report"),
        report.as_os_str(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(74), "{err}");
    assert!(!out.exists());
    assert_eq!(
        std::fs::read(&report).expect("kept"),
        b"the last run's report\n",
        "{err}"
    );
    assert!(err.contains("not written either"), "{err}");

    // With another input that is written: the report has its lines only.
    let msg = dir.path().join("m.eml");
    std::fs::write(&msg, LATIN1).expect("write");
    let o = run(&[
        os("normalize"),
        os("-q"),
        md.as_os_str(),
        msg.as_os_str(),
        os("-o"),
        out.as_os_str(),
        os("--report"),
        report.as_os_str(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(74), "{err}");
    assert!(out.join("m.eml").exists() && !out.join("md").exists());
    let text = std::fs::read_to_string(&report).expect("report");
    let inputs: Vec<String> = text
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).expect("json")["input"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect();
    assert_eq!(inputs, [msg.display().to_string()], "{text}");
}

#[test]
fn regression_a_killed_runs_temporary_deep_in_a_folder_is_removed_in_place() {
    // A killed in-place folder run leaves the old version of the file it
    // was replacing (a whole mbox) under a hidden temporary name beside
    // it. Later in-place runs removed those only at the folder's top and
    // in cur/ and new/: one in F/lists stayed for good.
    let dir = tempfile::tempdir().expect("tmp");
    let folder = dir.path().join("F");
    std::fs::create_dir_all(folder.join("lists/deeper")).expect("mkdir");
    let mbox = b"From a@b Mon Jan  1 00:00:00 2001\nSubject: one\n\nx\n\n\
                 From a@b Mon Jan  1 00:00:01 2001\nSubject: two\n\ny\n\n";
    let mut stale = Vec::new();
    for (sub, name) in [("", "inbox"), ("lists", "mips"), ("lists/deeper", "m")] {
        let d = folder.join(sub);
        std::fs::write(d.join(name), mbox).expect("write");
        let t = d.join(format!(".{name}.AbC123.mailcharset-tmp"));
        std::fs::write(&t, mbox).expect("write");
        crate::common::backdate(&t);
        stale.push(t);
    }
    let o = run(&[
        os("normalize"),
        os("-q"),
        os("--in-place"),
        folder.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for t in &stale {
        assert!(!t.exists(), "{} removed", t.display());
    }
    assert_eq!(
        std::fs::read(folder.join("lists/deeper/m")).expect("read"),
        mbox
    );
}

#[test]
fn regression_in_place_takes_several_inputs_each_its_own_output() {
    // doc/mailbox.md said that in place, with several inputs, the others
    // are still done when one is locked or changed; `--in-place a b` was
    // refused (64, "several inputs need -o DIR"). Each input is now its own
    // output; inputs inside one another are refused before anything is
    // written.
    let dir = tempfile::tempdir().expect("tmp");
    let mut a = b"From a@b Mon Jan  1 00:00:00 2001\n".to_vec();
    a.extend_from_slice(LATIN1);
    a.extend_from_slice(b"\n");
    let boxes = dir.path().join("a.mbox");
    std::fs::write(&boxes, &a).expect("write");
    let msg = dir.path().join("m.eml");
    std::fs::write(&msg, LATIN1).expect("write");
    let md = dir.path().join("md");
    latin1_maildir(&md);
    let o = run(&[
        os("normalize"),
        os("-q"),
        os("--in-place"),
        boxes.as_os_str(),
        msg.as_os_str(),
        md.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_ne!(std::fs::read(&boxes).expect("read"), a);
    assert_eq!(std::fs::read(&msg).expect("read"), lib_normalize(LATIN1));
    assert_eq!(
        std::fs::read(md.join("cur/1.host:2,S")).expect("read"),
        lib_normalize(LATIN1)
    );

    // Inside one another, or twice: nothing written.
    std::fs::write(&msg, LATIN1).expect("write");
    std::fs::write(md.join("cur/1.host:2,S"), LATIN1).expect("write");
    let before = snapshot(dir.path());
    for args in [
        [
            md.as_os_str(),
            md.join("cur/1.host:2,S").into_os_string().as_os_str(),
        ],
        [msg.as_os_str(), msg.as_os_str()],
    ] {
        let mut full = vec![os("normalize"), os("-q"), os("--in-place")];
        full.extend_from_slice(&args);
        let o = run(&full);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(74), "{err}");
        assert_eq!(snapshot(dir.path()), before, "{err}");
    }

    // One locked by an MDA: left as it is (75), the others still done.
    std::fs::write(&boxes, &a).expect("write");
    let lock = mailbox::lock_path(&boxes);
    std::fs::write(&lock, b"4242\n").expect("the MDA's lock");
    let o = run(&[
        os("normalize"),
        os("-q"),
        os("--in-place"),
        boxes.as_os_str(),
        msg.as_os_str(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(75), "{err}");
    assert!(err.contains("locked by another program"), "{err}");
    assert_eq!(std::fs::read(&boxes).expect("read"), a);
    assert_eq!(std::fs::read(&msg).expect("read"), lib_normalize(LATIN1));
    assert_eq!(std::fs::read(&lock).expect("lock"), b"4242\n");
}

/// A legal file name of 232 to 255 octets gave a temporary
/// (`.NAME.XXXXXX.mailcharset-tmp`) or backup (`.NAME.mailcharset-bak`)
/// name past NAME_MAX: in a Maildir the first such message ended the
/// in-place run with 74, the messages after it left as they were; such an
/// mbox could not be normalized at all. The hidden names are now bounded
/// (the name's first octets, `~` and a hash).
#[test]
fn regression_a_long_file_name_neither_stops_the_run_nor_is_refused() {
    let dir = tempfile::tempdir().expect("tmp");
    let md = dir.path().join("md");
    for sub in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(md.join(sub)).expect("mkdir");
    }
    let long = format!("1.M1.{}:2,S", "h".repeat(245));
    assert_eq!(long.len(), 254);
    let names = ["0.M0.x:2,S", long.as_str(), "9.M9.x:2,S"];
    for n in names {
        std::fs::write(md.join("cur").join(n), LATIN1).expect("write");
    }
    let o = run(&[os("normalize"), os("-q"), os("--in-place"), md.as_os_str()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    for n in names {
        assert_eq!(
            std::fs::read(md.join("cur").join(n)).expect("read"),
            lib_normalize(LATIN1),
            "{n}"
        );
    }
    assert!(crate::common::temporaries(&md.join("cur")).is_empty());

    // An mbox of such a name, in place and with -o to a file of the same
    // name elsewhere.
    let name = "b".repeat(250);
    let boxp = dir.path().join(&name);
    let mut mb = b"From a@b Mon Jan  1 00:00:00 2001\n".to_vec();
    mb.extend_from_slice(LATIN1);
    std::fs::write(&boxp, &mb).expect("write");
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).expect("mkdir");
    let o = run(&[
        os("normalize"),
        os("-q"),
        boxp.as_os_str(),
        os("-o"),
        out_dir.join(&name).as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(&[
        os("normalize"),
        os("-q"),
        os("--in-place"),
        boxp.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut want = b"From a@b Mon Jan  1 00:00:00 2001\n".to_vec();
    want.extend_from_slice(&lib_normalize(LATIN1));
    assert_eq!(std::fs::read(&boxp).expect("read"), want);
    assert_eq!(std::fs::read(out_dir.join(&name)).expect("read"), want);
    // No backup or temporary left beside it.
    assert_eq!(
        crate::common::entry_names(dir.path()),
        [name.as_str(), "md", "out"]
    );
}

/// Whether this test process may give files away (root): a file it makes
/// is root's.
#[cfg(unix)]
fn running_as_root(dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let p = dir.join(".whoami");
    std::fs::write(&p, b"").expect("write");
    let root = std::fs::metadata(&p).expect("stat").uid() == 0;
    std::fs::remove_file(&p).expect("remove");
    root
}

/// `--in-place` run as root (an administrator over /var/mail or the
/// users' Maildirs) gave every file it replaced to `root:root`: the
/// mailbox's owner could no longer read it, and an MDA delivering as the
/// user could no longer write to it. Owner and group are now copied to
/// the new file (`atomic::copy_owner`), in place and for an output file
/// that replaces one.
#[cfg(unix)]
#[test]
fn regression_in_place_keeps_the_owner_and_group_of_what_it_replaces() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let test = "regression_in_place_keeps_the_owner_and_group_of_what_it_replaces";
    let dir = tempfile::tempdir().expect("tmp");
    if !running_as_root(dir.path()) {
        crate::common::skip(test, "not root: files cannot be given to another user");
        return;
    }
    // nobody:nogroup, as on Debian; only the numbers matter.
    let (uid, gid) = (65534, 65534);
    let give = |p: &Path, mode: u32| {
        std::os::unix::fs::chown(p, Some(uid), Some(gid)).expect("chown");
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).expect("chmod");
    };
    let owner = |p: &Path| {
        let m = std::fs::metadata(p).expect("stat");
        (m.uid(), m.gid(), m.mode() & 0o7777)
    };
    let boxp = dir.path().join("alice");
    let mut mb = b"From a@b Mon Jan  1 00:00:00 2001\n".to_vec();
    mb.extend_from_slice(LATIN1);
    std::fs::write(&boxp, &mb).expect("write");
    give(&boxp, 0o660);
    let md = dir.path().join("md");
    for sub in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(md.join(sub)).expect("mkdir");
    }
    let msg = md.join("cur/1.M1.h:2,S");
    std::fs::write(&msg, LATIN1).expect("write");
    give(&msg, 0o600);
    let eml = dir.path().join("one.eml");
    std::fs::write(&eml, LATIN1).expect("write");
    give(&eml, 0o640);
    let o = run(&[
        os("normalize"),
        os("-q"),
        os("--in-place"),
        boxp.as_os_str(),
        md.as_os_str(),
        eml.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read(&msg).expect("read"), lib_normalize(LATIN1));
    assert_ne!(std::fs::read(&boxp).expect("read"), mb);
    assert_eq!(owner(&boxp), (uid, gid, 0o660));
    assert_eq!(owner(&msg), (uid, gid, 0o600));
    assert_eq!(owner(&eml), (uid, gid, 0o640));

    // An output file that replaces one keeps its owner too.
    let out = dir.path().join("out.mbox");
    std::fs::write(&out, b"old").expect("write");
    give(&out, 0o644);
    std::fs::write(&boxp, &mb).expect("write");
    let o = run(&[
        os("normalize"),
        os("-q"),
        boxp.as_os_str(),
        os("-o"),
        out.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(owner(&out), (uid, gid, 0o644));
}

/// Runs the binary as a user whom `chmod 000` keeps out of what `lock`
/// names: this process's own, or, when it is root (which reads any
/// directory), `nobody` (65534:65534, through `setpriv`), to whom all of
/// `dir` is given first so that `--in-place` and `-o` may write there.
/// `lock` is made mode 000 (restored by [`Unprivileged::unlock`]). None,
/// the skip recorded, when that cannot be: root without `setpriv`, or a
/// user whom mode 000 does not keep out.
#[cfg(unix)]
struct Unprivileged {
    root: bool,
    locked: Vec<(PathBuf, u32)>,
}

#[cfg(unix)]
impl Unprivileged {
    const AS_NOBODY: [&str; 3] = ["--reuid=65534", "--regid=65534", "--clear-groups"];

    fn new(test: &str, dir: &Path, lock: &[&Path]) -> Option<Self> {
        use std::os::unix::fs::PermissionsExt;
        let root = running_as_root(dir);
        if root {
            let probe = Command::new("setpriv")
                .args(Self::AS_NOBODY)
                .arg(bin())
                .arg("--version")
                .output();
            if !probe.is_ok_and(|o| o.status.success()) {
                crate::common::skip(
                    test,
                    "running as root, and `setpriv` cannot run the binary as nobody: mode 000 \
                     keeps root out of nothing",
                );
                return None;
            }
            // The temporary directory is root's, mode 0700.
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
            for p in std::iter::once(dir.to_path_buf())
                .chain(crate::common::files_under(dir, &|_| true))
                .chain(dirs_under(dir))
            {
                std::os::unix::fs::lchown(&p, Some(65534), Some(65534)).expect("chown");
            }
        }
        let mut locked = Vec::new();
        for p in lock {
            let mode = std::fs::metadata(p).expect("stat").permissions().mode();
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o000)).expect("chmod");
            locked.push((p.to_path_buf(), mode));
        }
        let me = Unprivileged { root, locked };
        // Mode 000 must keep the user out, and the user must reach `dir`.
        for (p, _) in &me.locked {
            if me
                .command("test")
                .arg("-r")
                .arg(p)
                .status()
                .is_ok_and(|s| s.success())
            {
                me.unlock();
                crate::common::skip(test, "mode 000 does not keep this user out");
                return None;
            }
        }
        let reach = me.command("test").arg("-w").arg(dir).status();
        assert!(
            reach.is_ok_and(|s| s.success()),
            "{test}: the user the binary runs as cannot write in {}",
            dir.display()
        );
        Some(me)
    }

    /// `program`, run as that user.
    fn command(&self, program: &str) -> Command {
        if self.root {
            let mut c = Command::new("setpriv");
            c.args(Self::AS_NOBODY).arg(program);
            c
        } else {
            Command::new(program)
        }
    }

    /// The binary with `args`, as that user.
    fn run(&self, args: &[&std::ffi::OsStr]) -> Output {
        self.command(bin())
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("the binary runs")
    }

    /// Gives back what was locked its mode.
    fn unlock(&self) {
        use std::os::unix::fs::PermissionsExt;
        for (p, mode) in &self.locked {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(*mode)).expect("chmod");
        }
    }
}

/// Every directory under `dir`, recursively.
#[cfg(unix)]
fn dirs_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read_dir").flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                out.push(e.path());
                stack.push(e.path());
            }
        }
    }
    out
}

/// The `input` of each audit record.
fn audited_inputs(stdout: &[u8]) -> std::collections::BTreeSet<String> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["input"].as_str().map(str::to_owned))
        .collect()
}

/// The three runs over an input with unreadable directories in it, as
/// the unprivileged user: `audit` (its records must be `readable`'s and
/// no other), `normalize -o` (no output put in place) and `normalize
/// --in-place`; each exits 74 and `names_them` its stderr, which must also
/// hold the run's own words (`not audited`, `no output written`,
/// `normalized in place`, when given).
#[cfg(unix)]
fn three_runs_exit_74(
    as_user: &Unprivileged,
    input: &Path,
    out: &Path,
    readable: &[PathBuf],
    names_them: impl Fn(&str) -> bool,
    words: [&str; 3],
) {
    let runs: [Vec<&std::ffi::OsStr>; 3] = [
        vec![
            os("audit"),
            os("-q"),
            os("--format"),
            os("jsonl"),
            input.as_os_str(),
        ],
        vec![
            os("normalize"),
            os("-q"),
            input.as_os_str(),
            os("-o"),
            out.as_os_str(),
        ],
        vec![
            os("normalize"),
            os("-q"),
            os("--in-place"),
            input.as_os_str(),
        ],
    ];
    for (args, word) in runs.iter().zip(words) {
        let o = as_user.run(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(74), "{args:?}: {err}");
        assert!(names_them(&err) && err.contains(word), "{args:?}: {err}");
        if args[0] == "audit" {
            let want: std::collections::BTreeSet<String> =
                readable.iter().map(|p| p.display().to_string()).collect();
            assert_eq!(audited_inputs(&o.stdout), want, "{err}");
        }
    }
    assert!(!out.exists(), "-o put an output in place");
}

/// Each of `paths` holds the Latin-1 message normalized in place.
#[cfg(unix)]
fn assert_normalized_in_place(paths: &[PathBuf]) {
    for p in paths {
        assert_eq!(
            std::fs::read(p).expect("read"),
            lib_normalize(LATIN1),
            "{} normalized",
            p.display()
        );
    }
}

#[cfg(unix)]
#[test]
fn regression_an_unreadable_directory_in_a_maildir_does_not_end_the_run() {
    // One directory of a Maildir that could not be listed (`chmod 000
    // new/`, a root-owned folder a restore left) ended the whole run with
    // 74: audit printed nothing, --in-place normalized nothing. Now it is
    // named after the run, as an unreadable message file is, and the
    // others are done: audit and in place exit 74 at the end, -o lists it
    // and puts no output in place (it would lack its messages).
    let test = "regression_an_unreadable_directory_in_a_maildir_does_not_end_the_run";
    let dir = tempfile::tempdir().expect("tmp");
    let md = dir.path().join("md");
    latin1_maildir(&md);
    std::fs::write(md.join("new/9.host"), LATIN1).expect("write");
    // A Maildir++ folder whose cur/ is locked, one locked whole (it cannot
    // even be told to be a folder), and LAYOUT=fs folders, one locked.
    for f in [".Sent", ".Locked", "Lists/mips", "Lists/gone"] {
        for sub in ["cur", "new", "tmp"] {
            std::fs::create_dir_all(md.join(f).join(sub)).expect("mkdir");
        }
        std::fs::write(md.join(f).join("cur/1.host:2,S"), LATIN1).expect("write");
    }
    std::fs::write(md.join(".Sent/new/2.host"), LATIN1).expect("write");
    let locked = ["new", ".Sent/cur", ".Locked", "Lists/gone"].map(|p| md.join(p));
    let Some(as_user) = Unprivileged::new(test, dir.path(), &locked.each_ref().map(|p| &**p))
    else {
        return;
    };
    let names_them = |err: &str| {
        locked
            .iter()
            .all(|p| err.contains(&format!("{}/ (", p.display())))
            && err.contains("4 directory(ies) could not be read")
    };
    let readable = [
        "cur/1.host:2,S",
        ".Sent/new/2.host",
        "Lists/mips/cur/1.host:2,S",
    ]
    .map(|p| md.join(p));
    three_runs_exit_74(
        &as_user,
        &md,
        &dir.path().join("out"),
        &readable,
        names_them,
        ["not audited", "no output written", "normalized in place"],
    );
    as_user.unlock();
    assert_normalized_in_place(&readable);
    for p in [
        "new/9.host",
        ".Sent/cur/1.host:2,S",
        ".Locked/cur/1.host:2,S",
    ] {
        assert_eq!(
            std::fs::read(md.join(p)).expect("read"),
            LATIN1,
            "{p} as it was"
        );
    }
}

#[cfg(unix)]
#[test]
fn regression_an_unreadable_subfolder_does_not_end_the_run() {
    // The same for a folder of message files: `chmod 000` on one
    // subfolder ended the run (audit: 0 records). Named with the files
    // that could not be read, the others done, 74. The input itself
    // unreadable is still an error at once, naming it.
    let test = "regression_an_unreadable_subfolder_does_not_end_the_run";
    let dir = tempfile::tempdir().expect("tmp");
    let fold = dir.path().join("fold");
    for sub in ["a", "b", "c/d"] {
        std::fs::create_dir_all(fold.join(sub)).expect("mkdir");
        std::fs::write(fold.join(sub).join("1.eml"), LATIN1).expect("write");
    }
    std::fs::write(fold.join("a/2.eml"), LATIN1).expect("write");
    let (locked_dir, locked_file) = (fold.join("c"), fold.join("a/2.eml"));
    let Some(as_user) = Unprivileged::new(test, dir.path(), &[&locked_dir, &locked_file]) else {
        return;
    };
    let names_them = |err: &str| {
        err.contains(&format!("{}/ (", locked_dir.display()))
            && err.contains(&format!("{} (", locked_file.display()))
            && err.contains("1 file(s) and 1 directory(ies) could not be read")
    };
    let readable = ["a/1.eml", "b/1.eml"].map(|p| fold.join(p));
    three_runs_exit_74(
        &as_user,
        &fold,
        &dir.path().join("out"),
        &readable,
        names_them,
        ["", "no output written", ""],
    );

    // The folder itself unreadable: nothing to go on with.
    as_user.unlock();
    let whole = Unprivileged::new(test, dir.path(), &[&fold]).expect("locked as before");
    let o = whole.run(&[os("audit"), os("-q"), fold.as_os_str()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(74), "{err}");
    assert!(
        err.contains(&fold.display().to_string()) && !err.contains("could not be read"),
        "{err}"
    );
    assert!(o.stdout.is_empty());
    whole.unlock();

    assert_normalized_in_place(&readable);
    for p in [&locked_file, &fold.join("c/d/1.eml")] {
        assert_eq!(std::fs::read(p).expect("read"), LATIN1, "{}", p.display());
    }
}

/// Dovecot and Courier take a Maildir message's received date (IMAP
/// INTERNALDATE, "sort by arrival") from its file's modification time;
/// `--in-place` and `-o` gave every message they wrote the time of the
/// run, so a message of 2001 arrived today. A message file now keeps its
/// access and modification times; an mbox in place is modified now and
/// keeps its "new mail" state (read before or after the last delivery).
#[test]
fn regression_a_message_file_keeps_its_times_and_an_mbox_its_new_mail_state() {
    use std::time::{Duration, SystemTime};
    let dir = tempfile::tempdir().expect("tmp");
    let set = |p: &Path, accessed: SystemTime, modified: SystemTime| {
        std::fs::File::options()
            .write(true)
            .open(p)
            .expect("open")
            .set_times(
                std::fs::FileTimes::new()
                    .set_accessed(accessed)
                    .set_modified(modified),
            )
            .expect("set times");
    };
    let times = |p: &Path| {
        let m = std::fs::metadata(p).expect("stat");
        (m.accessed().expect("atime"), m.modified().expect("mtime"))
    };
    let received = SystemTime::UNIX_EPOCH + Duration::from_secs(981_173_106);
    let read = received + Duration::from_secs(3600);
    let md = dir.path().join("md");
    for sub in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(md.join(sub)).expect("mkdir");
    }
    let msg = md.join("cur/981173106.M1.h:2,S");
    std::fs::write(&msg, LATIN1).expect("write");
    set(&msg, read, received);
    let folder = dir.path().join("folder");
    std::fs::create_dir(&folder).expect("mkdir");
    std::fs::write(folder.join("m1.eml"), LATIN1).expect("write");
    set(&folder.join("m1.eml"), read, received);
    let eml = dir.path().join("one.eml");
    std::fs::write(&eml, LATIN1).expect("write");
    set(&eml, read, received);

    // With -o first (the inputs as they are), then in place.
    let out = dir.path().join("out");
    let out_f = dir.path().join("outf");
    for (input, output) in [(&md, &out), (&folder, &out_f)] {
        let o = run(&[
            os("normalize"),
            os("-q"),
            input.as_os_str(),
            os("-o"),
            output.as_os_str(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    // (Looked at before the files are read: reading may set the access
    // time.)
    let copy = out.join("cur/981173106.M1.h:2,S");
    assert_eq!(times(&copy), (read, received), "-o, Maildir");
    assert_eq!(times(&out_f.join("m1.eml")), (read, received), "-o, folder");
    assert_eq!(std::fs::read(&copy).expect("read"), lib_normalize(LATIN1));
    // The input was read, not written.
    set(&msg, read, received);
    set(&folder.join("m1.eml"), read, received);
    let o = run(&[
        os("normalize"),
        os("-q"),
        os("--in-place"),
        md.as_os_str(),
        folder.as_os_str(),
        eml.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for p in [&msg, &folder.join("m1.eml"), &eml] {
        assert_eq!(times(p), (read, received), "in place: {}", p.display());
        assert_eq!(std::fs::read(p).expect("read"), lib_normalize(LATIN1));
    }

    // An mbox in place was modified: now. Read before the last delivery
    // (new mail), it stays so (accessed before modified); read after it,
    // it stays read.
    let mut mb = b"From a@b Mon Jan  1 00:00:00 2001\n".to_vec();
    mb.extend_from_slice(LATIN1);
    mb.extend_from_slice(b"\nFrom c@d Tue Jan  2 00:00:00 2001\n");
    mb.extend_from_slice(KOI8R);
    for new_mail in [true, false] {
        let boxp = dir.path().join(format!("box-{new_mail}"));
        std::fs::write(&boxp, &mb).expect("write");
        let (a, m) = if new_mail {
            (received, read)
        } else {
            (read, received)
        };
        set(&boxp, a, m);
        let before = SystemTime::now() - Duration::from_secs(2);
        let o = run(&[
            os("normalize"),
            os("-q"),
            os("--in-place"),
            boxp.as_os_str(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let (a, m) = times(&boxp);
        assert!(m > before, "modified now");
        assert_eq!(a < m, new_mail, "new mail {new_mail}: {a:?} {m:?}");
    }
}

/// `normalize --in-place ~/Maildir/cur` (or `-o` from `.../new`) read the
/// directory as a plain folder, and the messages it converted kept their
/// old `,S=`/`,W=` size tags, which Dovecot and Courier read sizes and
/// quotas from. Named on its own, a Maildir's `cur/` or `new/` has its
/// files' tags brought up to date as in the Maildir; and a file there
/// that starts with `From ` is one message, never split as an mbox.
#[test]
fn regression_a_maildir_cur_named_on_its_own_gets_its_size_tags_updated() {
    let dir = tempfile::tempdir().expect("tmp");
    let md = dir.path().join("md");
    for sub in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(md.join(sub)).expect("mkdir");
    }
    let size = LATIN1.len();
    let stale = format!("1.M1.h,S={size},W={}:2,S", size + 5);
    std::fs::write(md.join("cur").join(&stale), LATIN1).expect("write");
    std::fs::write(md.join("new").join(format!("2.M2.h,S={size}")), LATIN1).expect("write");
    let mut two = b"From a@b Mon Jan  1 00:00:00 2001\n".to_vec();
    two.extend_from_slice(LATIN1);
    two.extend_from_slice(b"\nFrom c@d Tue Jan  2 00:00:00 2001\n");
    two.extend_from_slice(KOI8R);
    std::fs::write(md.join("new/3.M3.h"), &two).expect("write");
    let new = lib_normalize(LATIN1);
    let n = new.len();
    let w = n + new.iter().filter(|&&b| b == b'\n').count();

    let out = dir.path().join("out");
    let o = run(&[
        os("normalize"),
        os("-q"),
        md.join("new").as_os_str(),
        os("-o"),
        out.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let copy = out.join(format!("2.M2.h,S={n}"));
    assert_eq!(
        std::fs::read(&copy).expect("-o: the tag follows the content"),
        new
    );
    // One message, normalized as one (its second `From ` line is body).
    assert_eq!(
        std::fs::read(out.join("3.M3.h")).expect("read"),
        lib_normalize(&two)
    );

    let o = run(&[
        os("normalize"),
        os("-q"),
        os("--in-place"),
        md.join("cur").as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let fresh = md.join("cur").join(format!("1.M1.h,S={n},W={w}:2,S"));
    assert_eq!(std::fs::read(&fresh).expect("in place: renamed"), new);
    assert!(!md.join("cur").join(&stale).exists());
}

/// A file or directory in a Maildir++ folder (`.Lists/`) outside its
/// `cur/`, `new/` and `tmp/` (a message a script or a restore dropped
/// there) was passed over in silence: not listed, `--strict-inputs` exited
/// 0, and `-o` left it out without a word; the same at the Maildir's top
/// level was listed. Now both are.
#[test]
fn regression_stray_files_in_a_maildir_plus_plus_folder_are_listed() {
    let dir = tempfile::tempdir().expect("tmp");
    let md = dir.path().join("md");
    for sub in [
        "cur",
        "new",
        "tmp",
        ".Lists/cur",
        ".Lists/new",
        ".Lists/tmp",
        ".Lists/archive",
    ] {
        std::fs::create_dir_all(md.join(sub)).expect("mkdir");
    }
    std::fs::write(md.join("cur/1.M1.h:2,S"), b"Subject: a\n\nx\n").expect("write");
    std::fs::write(md.join(".Lists/maildirfolder"), b"").expect("write");
    std::fs::write(md.join(".Lists/dovecot-uidlist"), b"3 V1 N2\n").expect("write");
    std::fs::write(
        md.join(".Lists/1234.M5.host"),
        b"Subject: dropped\n\nimportant\n",
    )
    .expect("write");
    std::fs::write(
        md.join(".Lists/archive/m1"),
        b"Subject: deeper\n\nimportant\n",
    )
    .expect("write");
    let r = MaildirReader::open(&md).expect("open");
    let mut listed: Vec<_> = r
        .skipped()
        .list()
        .into_iter()
        .map(|s| (s.path, s.reason))
        .collect();
    listed.sort();
    assert_eq!(
        listed,
        [
            (md.join(".Lists/1234.M5.host"), SkipReason::NotInMaildir),
            (md.join(".Lists/archive/m1"), SkipReason::NotInMaildir),
        ]
    );
    let out = dir.path().join("out");
    let o = run(&[
        os("normalize"),
        os("--strict-inputs"),
        md.as_os_str(),
        os("-o"),
        out.as_os_str(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(66), "{err}");
    assert!(err.contains(".Lists/1234.M5.host"), "{err}");
    assert!(err.contains(".Lists/archive/m1"), "{err}");
}

/// The messages an mbox output holds, as this program reads it back.
fn raw_mbox_messages(bytes: &[u8]) -> Vec<mailbox::RawMessage> {
    let kind = mailbox::sniff(bytes);
    let mailbox::InputKind::Mbox(fl) = kind else {
        panic!("not an mbox: {kind:?}");
    };
    mailbox::MboxReader::new(bytes, "out", fl)
        .collect::<Result<_, _>>()
        .expect("reads")
}

/// A body line that starts with `From ` but is no envelope line (`From now
/// on, ...`, left unquoted by a sloppy writer or `cat`) split the letter
/// in an mbox, and its tail was normalized as a message of its own: a
/// made-up header block in the middle of the text, the rest re-encoded,
/// and even a pure-ASCII letter got a blank line inserted. Such a line now
/// stays in its message (`mailbox::starts_message`); an unchanged message
/// is written back as it stood, a changed one with the line quoted.
#[test]
fn regression_an_unquoted_from_body_line_does_not_split_an_mbox_letter() {
    let dir = tempfile::tempdir().expect("tmp");
    let two = b"\nFrom a@b Mon Jan  1 00:00:00 2001\nSubject: two\n\nplain\n";
    let mut ascii = b"From a@b Mon Jan  1 00:00:00 2001\nSubject: one\n\nHello,\n\n\
From now on, please note:\nNote: the meeting moved\nsee you\n"
        .to_vec();
    ascii.extend_from_slice(two);
    let mut latin = b"From a@b Mon Jan  1 00:00:00 2001\nSubject: one\n\
Content-Type: text/plain; charset=iso-8859-1\n\nHello,\n\nFrom now on we meet\nat the caf\xe9\n"
        .to_vec();
    latin.extend_from_slice(two);
    for (name, input) in [("ascii", &ascii), ("latin", &latin)] {
        let inp = dir.path().join(format!("{name}.mbox"));
        let out = dir.path().join(format!("{name}.out"));
        std::fs::write(&inp, input).expect("write");
        let o = run(&[
            os("normalize"),
            os("-q"),
            inp.as_os_str(),
            os("-o"),
            out.as_os_str(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let got = std::fs::read(&out).expect("read");
        let msgs = raw_mbox_messages(&got);
        assert_eq!(msgs.len(), 2, "{name}: {}", String::from_utf8_lossy(&got));
        if name == "ascii" {
            assert_eq!(got, ascii, "nothing to convert: the same octets");
        } else {
            // One letter, converted whole: its text after the line too.
            let first = lib_normalize(&msgs[0].bytes);
            assert_eq!(msgs[0].bytes, first, "normalized once, as one message");
            let text = String::from_utf8_lossy(&got);
            assert_eq!(text.matches("MIME-Version").count(), 1, "{text}");
            let decoded = mailcharset::normalize::normalize(
                &latin
                    [latin.iter().position(|&b| b == b'\n').unwrap() + 1..latin.len() - two.len()],
                &mailcharset::normalize::Options::default(),
            )
            .expect("normalizes");
            assert_eq!(msgs[0].bytes, decoded.bytes.as_ref());
        }
    }
    // Envelope lines without a date still start messages when a header
    // field follows them.
    let undated = b"From bob\nSubject: a\n\nx\n\nFrom bob\nSubject: b\n\ny\n";
    let fl = mailbox::MboxFlavor {
        format: mailbox::MboxFormat::Mboxo,
        crlf: false,
    };
    let msgs: Vec<_> = mailbox::MboxReader::new(&undated[..], "t", fl)
        .collect::<Result<_, _>>()
        .expect("reads");
    assert_eq!(msgs.len(), 2);
}

/// Standard input with a format given (`--input-format eml -`, `mboxo`,
/// `mboxrd`, `content-length`) is read as that format: it was opened as a
/// file named `-` ("No such file or directory", exit 66), and the piped
/// mail was written nowhere. A Maildir or folder cannot come on a pipe:
/// a usage error.
#[test]
fn regression_standard_input_with_a_format_given_is_read() {
    let msg = b"From: a@example.com\nSubject: x\nContent-Type: text/plain; charset=iso-8859-1\n\ncaf\xe9\n";
    let o = run_stdin(
        &[
            "normalize".as_ref(),
            "--input-format".as_ref(),
            "eml".as_ref(),
            "-".as_ref(),
        ],
        msg,
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let lib = mailcharset::normalize::normalize(msg, &Default::default()).unwrap();
    assert_eq!(o.stdout, &*lib.bytes);
    let mbox = b"From x@y Mon Jan  1 00:00:00 2024\nFrom: a@b.c\n\nhi\n\nFrom y@z Mon Jan  1 00:00:00 2024\nFrom: b@c.d\n\nho\n";
    for format in ["mboxo", "mboxrd"] {
        let o = run_stdin(
            &[
                "normalize".as_ref(),
                "--input-format".as_ref(),
                format.as_ref(),
                "-".as_ref(),
            ],
            mbox,
        );
        assert_eq!(
            o.status.code(),
            Some(0),
            "{format}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(o.stdout, mbox.to_vec(), "{format}");
    }
    let o = run_stdin(
        &[
            "normalize".as_ref(),
            "--input-format".as_ref(),
            "maildir".as_ref(),
            "-".as_ref(),
        ],
        mbox,
    );
    assert_eq!(o.status.code(), Some(64));
}

/// A single message over 64 KiB whose body quotes an envelope line and a
/// header field (a pasted `git format-patch`, an mbox excerpt) is one
/// message, from a file or standard input: the headless-mbox reading
/// switched off in `mbox::headless_start` still ran in the stream sniffer
/// (`mbox::later_envelope`) for inputs past its first look, and split
/// such a message in two, a MIME header written into its text.
#[test]
fn regression_a_large_message_quoting_an_envelope_line_is_one_message() {
    let tmp = tempfile::tempdir().unwrap();
    let mut msg = b"From: a@example.com\nSubject: a patch\nMIME-Version: 1.0\nContent-Type: text/plain; charset=iso-8859-1\n\nHere it is, caf\xe9:\n\n".to_vec();
    while msg.len() < 100_000 {
        msg.extend_from_slice(
            b"some words of the letter, line after line, to make it long enough.\n",
        );
    }
    msg.extend_from_slice(b"\nFrom 3f2a9c Mon Sep 17 00:00:00 2001\nFrom: Dev <dev@example.com>\nSubject: [PATCH] fix\n\n--- a/x\n+++ b/x\n");
    let path = tmp.path().join("one.eml");
    std::fs::write(&path, &msg).unwrap();
    let o = run(&[
        "audit".as_ref(),
        "--format".as_ref(),
        "jsonl".as_ref(),
        path.as_os_str(),
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.lines().all(|l| l.contains("\"index\":0")),
        "more than one message: {text}"
    );
    for input in [path.as_os_str(), "-".as_ref()] {
        let o = if input == "-" {
            run_stdin(&["normalize".as_ref(), "-".as_ref()], &msg)
        } else {
            run(&["normalize".as_ref(), input, "-o".as_ref(), "-".as_ref()])
        };
        assert_eq!(o.status.code(), Some(0));
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(out.matches("MIME-Version:").count(), 1, "{input:?}");
        // In the one body (quoted-printable escapes the `F` at a line start).
        assert!(out.contains("rom 3f2a9c Mon Sep 17"), "{input:?}");
    }
}
