//! The pipeline: input order kept whatever the number of jobs and however
//! uneven the work; counts; crash safety (no output unless the run
//! completed, a killed run followed by a re-run gives the same bytes as an
//! uninterrupted run); in-place backups; progress only where asked for.
//!
//! The per-message work here is a toy (upper-casing the Subject line); the
//! same tests will run with the real normalizer once it lands.

use crate::common;

use mailcharset::mailbox::{
    self, MailboxError, MboxFlavor, MboxFormat, MboxReader, MessageReader, MessageWriter, Options,
    Origin, Outcome, OutputKind, Progress, RawMessage, RunStats, WriteMode, pipeline,
};
use std::path::Path;
use std::time::Duration;

const FLAVOR: MboxFlavor = MboxFlavor {
    format: MboxFormat::Mboxrd,
    crlf: false,
};

/// An mbox of `n` messages; every third has a lower-case subject the toy
/// work changes, every fifth a `From ` body line to quote.
fn make_mbox(n: usize) -> Vec<u8> {
    make_padded_mbox(n, 0)
}

/// As [`make_mbox`], with `pad` bytes of filler per message.
fn make_padded_mbox(n: usize, pad: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..n {
        out.extend_from_slice(
            format!("From sender{i}@example.org Thu Jan  1 00:00:00 1970\n").as_bytes(),
        );
        let subject = if i % 3 == 0 { "lower case" } else { "KEEP" };
        out.extend_from_slice(
            format!("Message-ID: <{i}@example.org>\nSubject: {subject} {i}\n\n").as_bytes(),
        );
        for l in 0..(i % 7) {
            out.extend_from_slice(format!("line {l} of message {i}\n").as_bytes());
        }
        for _ in 0..pad / 64 {
            out.extend_from_slice(&[b'.'; 63]);
            out.push(b'\n');
        }
        if i % 5 == 0 {
            out.extend_from_slice(b">From the body\n");
        }
        out.extend_from_slice(b"\n");
    }
    out
}

/// The toy work: upper-case the Subject line; a finding when the message
/// has a quoted-From body line.
fn toy(m: &RawMessage) -> Outcome {
    let text = String::from_utf8_lossy(&m.bytes);
    let findings = usize::from(text.contains("\nFrom the body"));
    let out: String = text
        .split_inclusive('\n')
        .map(|l| {
            if l.starts_with("Subject:") {
                l.to_uppercase().replace("SUBJECT:", "Subject:")
            } else {
                l.to_string()
            }
        })
        .collect();
    if out.as_bytes() == m.bytes.as_slice() {
        Outcome::unchanged().with_findings(findings)
    } else {
        Outcome::changed(out.into_bytes()).with_findings(findings)
    }
}

fn run_to_file(
    input: &[u8],
    out: &Path,
    jobs: usize,
    delay: bool,
) -> Result<RunStats, MailboxError> {
    let reader = MboxReader::new(input, "input.mbox", FLAVOR);
    let writer = MessageWriter::create(out, OutputKind::Mbox(FLAVOR), WriteMode::Replace)?;
    let opts = quiet(jobs, 8);
    pipeline::run(reader, writer, &opts, |m| {
        if delay {
            // Uneven: later messages in a batch often finish first.
            std::thread::sleep(Duration::from_micros(((m.index * 7919) % 13) as u64 * 300));
        }
        toy(m)
    })
}

/// Pipeline options without a progress bar.
fn quiet(jobs: usize, batch_messages: usize) -> Options {
    Options {
        jobs,
        batch_messages,
        progress: Progress::Never,
        ..Options::default()
    }
}

/// What the output must be: the toy applied in order, serially.
fn expected_output(input: &[u8]) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.mbox");
    let mut w = MessageWriter::create(&out, OutputKind::Mbox(FLAVOR), WriteMode::Replace).unwrap();
    for m in MboxReader::new(input, "input.mbox", FLAVOR) {
        let m = m.unwrap();
        let o = toy(&m);
        w.write(&m, o.output.as_deref().unwrap_or(&m.bytes))
            .unwrap();
    }
    w.finish().unwrap();
    std::fs::read(out).unwrap()
}

#[test]
fn order_is_kept_with_one_and_four_jobs() {
    let input = make_mbox(200);
    let expected = expected_output(&input);
    assert_ne!(expected, input, "the toy changes something");
    for jobs in [1, 4] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.mbox");
        let stats = run_to_file(&input, &out, jobs, true).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), expected, "jobs={jobs}");
        assert_eq!(
            stats,
            RunStats {
                messages_in: 200,
                messages_out: 200,
                changed: 67,
                unchanged: 133,
                with_findings: 40,
                bytes_in: input.len() as u64,
                bytes_out: stats.bytes_out,
            }
        );
        let mut twice = stats;
        twice += stats;
        assert_eq!((twice.messages_in, twice.changed), (400, 134));
        assert_eq!(
            stats.to_string(),
            "200 messages in, 200 out: 67 changed, 133 kept as they were, 40 with findings"
        );
    }
}

#[test]
fn identity_run_reproduces_the_input() {
    let input = make_mbox(50);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("same.mbox");
    let reader = MboxReader::new(&input[..], "input.mbox", FLAVOR);
    let writer = MessageWriter::create(&out, OutputKind::Mbox(FLAVOR), WriteMode::Replace).unwrap();
    let stats = pipeline::run(
        reader,
        writer,
        &Options {
            jobs: 2,
            progress: Progress::Never,
            ..Options::default()
        },
        |_| Outcome::unchanged(),
    )
    .unwrap();
    assert_eq!(stats.unchanged, 50);
    assert_eq!(std::fs::read(&out).unwrap(), input);
}

/// Work whose output has `From ` lines where the input had none, or none
/// where it had some (as a decoded `=46rom` would), or the input's own
/// bytes returned as a new vector: the output is quoted by what is
/// written, never by what was read.
fn from_maker(m: &RawMessage) -> Outcome {
    let text = String::from_utf8_lossy(&m.bytes);
    match m.index % 3 {
        0 => Outcome::changed(text.replace("\nXrom ", "\nFrom ").into_bytes()),
        1 => Outcome::changed(text.replace("\nFrom ", "\nXrom ").into_bytes()),
        _ => Outcome::changed(m.bytes.clone()),
    }
}

#[test]
fn from_lines_are_quoted_as_the_output_has_them() {
    let mut input = Vec::new();
    for i in 0..30 {
        input.extend_from_slice(
            format!("From s{i}@example.org Thu Jan  1 00:00:00 1970\n").as_bytes(),
        );
        input.extend_from_slice(format!("Subject: {i}\n\nXrom a body line\n").as_bytes());
        if i % 2 == 0 {
            input.extend_from_slice(b">From a quoted line\n");
        }
        input.extend_from_slice(b"\n");
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.mbox");
    let expected = dir.path().join("expected.mbox");
    let mut w =
        MessageWriter::create(&expected, OutputKind::Mbox(FLAVOR), WriteMode::Replace).unwrap();
    for m in MboxReader::new(&input[..], "input.mbox", FLAVOR) {
        let m = m.unwrap();
        let o = from_maker(&m);
        w.write(&m, o.output.as_deref().unwrap_or(&m.bytes))
            .unwrap();
    }
    w.finish().unwrap();
    let expected = std::fs::read(expected).unwrap();
    assert!(
        expected.windows(12).any(|w| w == b"\n>From a bod"),
        "made From lines are quoted"
    );
    let back = MboxReader::new(&expected[..], "x", FLAVOR).count();
    assert_eq!(back, 30, "every message splits where it should");
    for jobs in [1, 3] {
        let reader = MboxReader::new(&input[..], "input.mbox", FLAVOR);
        let writer =
            MessageWriter::create(&out, OutputKind::Mbox(FLAVOR), WriteMode::Replace).unwrap();
        let stats = pipeline::run(reader, writer, &quiet(jobs, 4), from_maker).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), expected, "jobs {jobs}");
        // Outputs equal to their input (the bytes copied, or no line to
        // change) count as kept.
        assert_eq!((stats.changed, stats.unchanged), (15, 15), "jobs {jobs}");
    }
}

#[test]
fn a_reader_error_leaves_no_output() {
    let input = make_mbox(30);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.mbox");
    let failing = MboxReader::new(&input[..], "input.mbox", FLAVOR)
        .take(20)
        .chain(std::iter::once(Err(MailboxError::Unrecognized {
            path: "input.mbox".into(),
            reason: "simulated".into(),
        })));
    let writer = MessageWriter::create(&out, OutputKind::Mbox(FLAVOR), WriteMode::Replace).unwrap();
    let opts = quiet(2, 4);
    let err = pipeline::run(failing, writer, &opts, toy).unwrap_err();
    assert!(err.to_string().contains("simulated"), "{err}");
    assert!(
        common::entry_names(dir.path()).is_empty(),
        "{:?}",
        common::entry_names(dir.path())
    );
}

#[test]
fn a_writer_dropped_unfinished_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let m = RawMessage {
        bytes: b"Subject: x\n\ny\n".to_vec(),
        index: 0,
        offset: 0,
        input_len: 0,
        origin: Origin::Stdin,
        times: None,
    };
    for (name, kind) in [
        ("out.mbox", OutputKind::Mbox(FLAVOR)),
        ("Maildir", OutputKind::Maildir),
        ("folder", OutputKind::Folder),
    ] {
        let mut w =
            MessageWriter::create(&dir.path().join(name), kind, WriteMode::Replace).unwrap();
        w.write(&m, &m.bytes).unwrap();
        drop(w);
    }
    assert!(
        common::entry_names(dir.path()).is_empty(),
        "{:?}",
        common::entry_names(dir.path())
    );
}

#[test]
fn replacing_an_existing_output_is_all_or_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.mbox");
    std::fs::write(&out, b"previous complete output").unwrap();
    let input = make_mbox(10);
    let w = MessageWriter::create(&out, OutputKind::Mbox(FLAVOR), WriteMode::Replace).unwrap();
    drop(w);
    assert_eq!(std::fs::read(&out).unwrap(), b"previous complete output");
    run_to_file(&input, &out, 2, false).unwrap();
    assert_eq!(std::fs::read(&out).unwrap(), expected_output(&input));
    assert_eq!(common::entry_names(dir.path()), vec!["out.mbox"]);
}

#[test]
fn in_place_keeps_a_backup_until_complete() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("archive.mbox");
    let input = make_mbox(20);
    std::fs::write(&path, &input).unwrap();
    let bak = mailbox::backup_path(&path);

    // Abandoned: the input is untouched and the backup is cleaned up.
    let w = MessageWriter::create(&path, OutputKind::Mbox(FLAVOR), WriteMode::InPlace).unwrap();
    assert_eq!(
        std::fs::read(&bak).unwrap(),
        input,
        "backup made before writing"
    );
    drop(w);
    assert_eq!(std::fs::read(&path).unwrap(), input);
    assert!(!bak.exists());

    // Completed.
    let reader = MessageReader::open(&path, mailbox::detect(&path).unwrap()).unwrap();
    let mut w = MessageWriter::create(&path, OutputKind::Mbox(FLAVOR), WriteMode::InPlace).unwrap();
    let mut saw_backup = true;
    for m in reader {
        let m = m.unwrap();
        saw_backup &= bak.exists();
        let o = toy(&m);
        w.write(&m, o.output.as_deref().unwrap_or(&m.bytes))
            .unwrap();
    }
    assert!(saw_backup, "backup present while writing");
    w.finish().unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), expected_output(&input));
    assert!(
        !bak.exists(),
        "backup removed once the new file is in place"
    );
}

/// Child side of `an_interrupted_run_then_a_rerun_gives_identical_output`:
/// a slow run the parent kills midway. Does nothing in a normal test run.
#[test]
fn interrupted_run_child() {
    let (Ok(input), Ok(out)) = (
        std::env::var("MAILBOX_TEST_CHILD_IN"),
        std::env::var("MAILBOX_TEST_CHILD_OUT"),
    ) else {
        return;
    };
    let mode = match std::env::var("MAILBOX_TEST_CHILD_MODE").as_deref() {
        Ok("inplace") => WriteMode::InPlace,
        _ => WriteMode::Replace,
    };
    let input = std::fs::read(input).unwrap();
    let reader = MboxReader::new(&input[..], "input.mbox", FLAVOR);
    let writer = MessageWriter::create(Path::new(&out), OutputKind::Mbox(FLAVOR), mode).unwrap();
    let opts = quiet(2, 4);
    // Message 1500 never completes: the run cannot finish before the
    // parent kills it, and the 1,499 before it (1.5 MB, past the writer's
    // 1 MiB buffer) reach the temporary. No clock decides anything.
    pipeline::run(reader, writer, &opts, |m| {
        if m.index == 1500 {
            loop {
                std::thread::sleep(Duration::from_secs(1));
            }
        }
        toy(m)
    })
    .unwrap();
}

/// Runs `interrupted_run_child` and kills it once part of its output has
/// reached the hidden temporary next to `out`.
fn run_child_and_kill(input: &Path, out: &Path, mode: &str) -> (bool, std::process::ExitStatus) {
    let outdir = out.parent().unwrap();
    let prefix = format!(".{}.", out.file_name().unwrap().to_string_lossy());
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "mailbox_pipeline::interrupted_run_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("MAILBOX_TEST_CHILD_IN", input)
        .env("MAILBOX_TEST_CHILD_OUT", out)
        .env("MAILBOX_TEST_CHILD_MODE", mode)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut seen_partial = false;
    // Polls until the temporary has output (the child cannot finish first);
    // the count only guards against a hang if the child failed to start.
    for _ in 0..30_000 {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        let partial = std::fs::read_dir(outdir).unwrap().any(|e| {
            let e = e.unwrap();
            e.file_name().to_string_lossy().starts_with(&prefix)
                && e.metadata().map(|m| m.len() > 0).unwrap_or(false)
        });
        if partial {
            seen_partial = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(
        child.try_wait().unwrap().is_none(),
        "the child ended on its own before it was killed"
    );
    child.kill().unwrap();
    (seen_partial, child.wait().unwrap())
}

#[test]
fn an_interrupted_in_place_run_leaves_the_input_intact() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("archive.mbox");
    let input = make_padded_mbox(2000, 1024);
    std::fs::write(&path, &input).unwrap();
    let (seen_partial, status) = run_child_and_kill(&path, &path, "inplace");
    assert!(seen_partial, "the child never started writing");
    assert!(!status.success());
    assert_eq!(std::fs::read(&path).unwrap(), input, "input untouched");
    let bak = mailbox::backup_path(&path);
    assert_eq!(std::fs::read(&bak).unwrap(), input, "backup kept");

    // Re-run in place to completion.
    let reader = MessageReader::open_detected(&path).unwrap();
    let writer =
        MessageWriter::create(&path, OutputKind::Mbox(FLAVOR), WriteMode::InPlace).unwrap();
    let opts = Options {
        jobs: 2,
        progress: Progress::Never,
        ..Options::default()
    };
    pipeline::run(reader, writer, &opts, toy).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), expected_output(&input));
    assert!(!bak.exists());
}

#[test]
fn an_interrupted_run_then_a_rerun_gives_identical_output() {
    let dir = tempfile::tempdir().unwrap();
    let input_path = dir.path().join("input.mbox");
    // 2.5 MB: more than the writer's 1 MiB buffer, so part of the output
    // reaches the temporary file before the child is killed.
    let input = make_padded_mbox(2000, 1024);
    std::fs::write(&input_path, &input).unwrap();
    let outdir = dir.path().join("out");
    std::fs::create_dir(&outdir).unwrap();
    let out = outdir.join("result.mbox");

    let (seen_partial, status) = run_child_and_kill(&input_path, &out, "replace");
    assert!(seen_partial, "the child never started writing");
    assert!(!status.success(), "the child was killed, not finished");
    assert!(!out.exists(), "no half-written output under the final name");

    // Re-run, then compare with an uninterrupted run.
    run_to_file(&input, &out, 2, false).unwrap();
    let reference = dir.path().join("reference.mbox");
    run_to_file(&input, &reference, 1, false).unwrap();
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(&reference).unwrap()
    );
    assert_eq!(std::fs::read(&out).unwrap(), expected_output(&input));
    // The killed run's temporary, once it has been left alone a while, is
    // cleared by the next run writing the same output.
    let left = common::temporaries(&outdir);
    assert!(!left.is_empty(), "the killed run left its temporary");
    left.iter().for_each(|p| common::backdate(p));
    run_to_file(&input, &out, 2, false).unwrap();
    assert_eq!(common::entry_names(&outdir), ["result.mbox"]);
}

/// Only temporaries nobody holds are removed: a live run's (locked), one
/// modified a moment ago (a run between creating and locking it), another
/// output's and an `.old` directory stay.
#[test]
fn only_stale_temporaries_of_the_same_output_are_removed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let dead = d.join(".out.mbox.dead01.mailcharset-tmp");
    let dead_dir = d.join(".out.mbox.dead02.mailcharset-tmp");
    let live = d.join(".out.mbox.live00.mailcharset-tmp");
    let fresh = d.join(".out.mbox.fresh0.mailcharset-tmp");
    let other = d.join(".other.mbox.x00000.mailcharset-tmp");
    // Another output whose name starts the same, and a name no writer makes.
    let longer = d.join(".out.mbox.gz.abc123.mailcharset-tmp");
    let odd = d.join(".out.mbox.x.mailcharset-tmp");
    let old = d.join(".out.mbox.old000.mailcharset-tmp.old");
    for f in [&dead, &live, &fresh, &other, &longer, &odd] {
        std::fs::write(f, b"partial").unwrap();
    }
    for sub in [&dead_dir, &old] {
        std::fs::create_dir_all(sub.join("cur")).unwrap();
        std::fs::write(sub.join("cur/1"), b"x").unwrap();
    }
    for p in [&dead, &dead_dir, &live, &other, &longer, &odd, &old] {
        common::backdate(p);
    }
    // "A moment ago", whatever the machine's speed.
    common::postdate(&fresh);
    let holder = std::fs::File::open(&live).unwrap();
    holder.lock().unwrap();

    // A directory whose own time is old but with a file just written below
    // it is someone's work in progress.
    let busy_dir = d.join(".out.mbox.busy00.mailcharset-tmp");
    std::fs::create_dir_all(busy_dir.join("cur")).unwrap();
    common::backdate(&busy_dir);
    std::fs::write(busy_dir.join("cur/2"), b"x").unwrap();
    common::postdate(&busy_dir.join("cur/2"));
    let out = d.join("out.mbox");
    assert_eq!(mailbox::remove_stale_temporaries(&out), 2);
    assert!(busy_dir.exists());
    assert!(!dead.exists() && !dead_dir.exists());
    // The `.old` tree of a directory swap stays while the output is missing.
    for p in [&live, &fresh, &other, &longer, &odd, &old] {
        assert!(p.exists(), "{} was removed", p.display());
    }
    // A run writing the output removes them too, and its own temporary is
    // locked while it lasts.
    std::fs::write(&dead, b"partial").unwrap();
    common::backdate(&dead);
    let mut w = MessageWriter::create(&out, OutputKind::Mbox(FLAVOR), WriteMode::Replace).unwrap();
    assert!(!dead.exists());
    let own: Vec<_> = common::temporaries(d)
        .into_iter()
        .filter(|p| ![&live, &fresh, &other, &busy_dir, &longer, &odd].contains(&p))
        .collect();
    assert_eq!(own.len(), 1, "{own:?}");
    common::backdate(&own[0]);
    assert_eq!(mailbox::remove_stale_temporaries(&out), 0, "a live run's");
    let input = make_mbox(1);
    let m = MboxReader::new(&input[..], "input.mbox", FLAVOR)
        .next()
        .unwrap()
        .unwrap();
    w.write(&m, &m.bytes).unwrap();
    w.finish().unwrap();
    assert!(!own[0].exists());
    drop(holder);
    // A child process another test of this binary forks shares the lock's
    // open file description until it execs: the lock can outlive `holder`
    // by a moment on a loaded machine (this failed now and then in full
    // runs, never alone). Nothing else is counted, so the sum must reach 2
    // and stay there.
    let mut removed = 0;
    for _ in 0..100 {
        removed += mailbox::remove_stale_temporaries(&out);
        if removed >= 2 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(
        removed, 2,
        "no longer held, and the .old tree now that the output exists"
    );
    assert!(!live.exists() && !old.exists());

    // The same for a Maildir output's temporary directory.
    let md = d.join("Maildir");
    let w = MessageWriter::create(&md, OutputKind::Maildir, WriteMode::Replace).unwrap();
    let own: Vec<_> = common::temporaries(d)
        .into_iter()
        .filter(|p| p.to_string_lossy().contains("/.Maildir."))
        .collect();
    assert_eq!(own.len(), 1, "{own:?}");
    common::backdate(&own[0]);
    assert_eq!(mailbox::remove_stale_temporaries(&md), 0, "a live run's");
    drop(w);
    assert!(!own[0].exists());

    // An output that is a symbolic link: its temporaries are beside the
    // target, and that is where they are looked for.
    #[cfg(unix)]
    {
        let target_dir = d.join("real");
        std::fs::create_dir(&target_dir).unwrap();
        std::fs::write(target_dir.join("t.mbox"), b"").unwrap();
        let stale = target_dir.join(".t.mbox.stale0.mailcharset-tmp");
        std::fs::write(&stale, b"partial").unwrap();
        common::backdate(&stale);
        let link = d.join("link.mbox");
        std::os::unix::fs::symlink(target_dir.join("t.mbox"), &link).unwrap();
        assert_eq!(mailbox::remove_stale_temporaries(&link), 1);
        assert!(!stale.exists());
    }
}

/// Child side of `progress_is_drawn_only_when_asked_for`.
#[test]
fn progress_child() {
    let Ok(mode) = std::env::var("MAILBOX_TEST_PROGRESS") else {
        return;
    };
    let progress = match mode.as_str() {
        "always" => Progress::Always,
        "never" => Progress::Never,
        _ => Progress::Auto,
    };
    let input = make_mbox(300);
    let dir = tempfile::tempdir().unwrap();
    let reader = MboxReader::new(&input[..], "input.mbox", FLAVOR);
    let writer = MessageWriter::create(
        &dir.path().join("o.mbox"),
        OutputKind::Mbox(FLAVOR),
        WriteMode::Replace,
    )
    .unwrap();
    let opts = Options {
        jobs: 2,
        batch_messages: 16,
        progress,
        total_bytes: Some(input.len() as u64),
        ..Options::default()
    };
    pipeline::run(reader, writer, &opts, |m| {
        std::thread::sleep(Duration::from_millis(2));
        toy(m)
    })
    .unwrap();
}

#[test]
fn progress_is_drawn_only_when_asked_for() {
    let stderr_of = |mode: &str| {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "mailbox_pipeline::progress_child",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("MAILBOX_TEST_PROGRESS", mode)
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    // stderr is a pipe here: Auto stays silent, Always draws.
    let always = stderr_of("always");
    assert!(always.contains("msgs/s"), "{always:?}");
    assert!(always.contains("300 msgs"), "{always:?}");
    for mode in ["auto", "never"] {
        let s = stderr_of(mode);
        assert!(!s.contains("msgs"), "{mode}: {s:?}");
    }
    assert_eq!(Progress::from_flags(true, false), Progress::Never);
    assert_eq!(Progress::from_flags(false, true), Progress::Always);
    assert_eq!(Progress::from_flags(false, false), Progress::Auto);
}

/// Batches overlap (several in flight): a panic in the work of one message
/// reaches the caller instead of leaving the writer waiting for a batch
/// that never comes.
#[test]
fn a_panic_in_the_work_reaches_the_caller() {
    let input = make_mbox(200);
    let opts = quiet(2, 8);
    let got = std::panic::catch_unwind(|| {
        let reader = MboxReader::new(&input[..], "input.mbox", FLAVOR);
        pipeline::run_ordered(
            reader,
            &opts,
            |m: &RawMessage| {
                assert!(m.index != 37, "work failed on message 37");
                m.index
            },
            |_, _| Ok::<(), MailboxError>(()),
        )
    });
    let payload = got.expect_err("the panic is passed on");
    let text = panic_text(&*payload);
    assert!(text.contains("message 37"), "{text}");
}

/// The message of a panic's payload.
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

/// A panic in the reader reaches the caller with its own message (not
/// "a scoped thread panicked"), and nothing hangs.
#[test]
fn a_panic_in_the_reader_reaches_the_caller() {
    let input = make_mbox(100);
    let opts = quiet(2, 4);
    let got = std::panic::catch_unwind(|| {
        let reader = MboxReader::new(&input[..], "input.mbox", FLAVOR).inspect(|m| {
            if let Ok(m) = m {
                assert!(m.index != 30, "reader failed at message 30");
            }
        });
        pipeline::run_ordered(
            reader,
            &opts,
            |m: &RawMessage| m.index,
            |_, _| Ok::<(), MailboxError>(()),
        )
    });
    let payload = got.expect_err("the panic is passed on");
    let text = panic_text(&*payload);
    assert!(text.contains("message 30"), "{text}");
}

/// A sink error stops the run: everything before it was handed over in
/// order, nothing after it.
#[test]
fn a_sink_error_stops_the_run_in_order() {
    let input = make_mbox(200);
    let opts = quiet(2, 8);
    let reader = MboxReader::new(&input[..], "input.mbox", FLAVOR);
    let mut seen = Vec::new();
    let r = pipeline::run_ordered(
        reader,
        &opts,
        |m: &RawMessage| {
            // Uneven, so batches finish out of order.
            std::thread::sleep(Duration::from_micros(((m.index * 7919) % 13) as u64 * 100));
            m.index
        },
        |m, &i| {
            assert_eq!(m.index, i);
            if i == 50 {
                return Err(MailboxError::OutputExists {
                    path: "sink".into(),
                });
            }
            seen.push(i);
            Ok(())
        },
    );
    assert!(r.is_err());
    assert_eq!(seen, (0..50).collect::<Vec<_>>());
}

/// The default read-ahead: 1 MiB a core, never under 4 MiB, and what
/// `Options::default` takes on this machine, within the 16 MiB window.
#[test]
fn the_default_read_ahead_grows_with_the_cores() {
    assert_eq!(pipeline::default_read_ahead(0), 4 << 20);
    assert_eq!(pipeline::default_read_ahead(2), 4 << 20);
    assert_eq!(pipeline::default_read_ahead(6), 6 << 20);
    assert_eq!(pipeline::default_read_ahead(16), 16 << 20);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let o = Options::default();
    assert_eq!(o.read_ahead_bytes, pipeline::default_read_ahead(cores));
    assert_eq!(o.window_bytes, 16 << 20);
}

/// Runs 300 small messages through `opts` with a slow sink and returns
/// the input, how far the reader got ahead of the writer at most, and the
/// largest message; the messages must come out in order.
fn read_ahead_of(opts: &Options) -> (Vec<u8>, usize, usize) {
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    let input = make_padded_mbox(300, 512);
    let read = AtomicUsize::new(0);
    let written = AtomicUsize::new(0);
    let ahead = AtomicUsize::new(0);
    let largest = AtomicUsize::new(0);
    let reader = MboxReader::new(&input[..], "input.mbox", FLAVOR).inspect(|m| {
        if let Ok(m) = m {
            largest.fetch_max(m.bytes.len(), SeqCst);
            let r = read.fetch_add(m.bytes.len(), SeqCst) + m.bytes.len();
            ahead.fetch_max(r - written.load(SeqCst), SeqCst);
        }
    });
    let mut order = Vec::new();
    pipeline::run_ordered(
        reader,
        opts,
        |m: &RawMessage| m.index,
        |m, &i| {
            std::thread::sleep(Duration::from_micros(200));
            order.push(i);
            written.fetch_add(m.bytes.len(), SeqCst);
            Ok::<(), MailboxError>(())
        },
    )
    .unwrap();
    assert_eq!(order, (0..300).collect::<Vec<_>>());
    (input, ahead.load(SeqCst), largest.load(SeqCst))
}

/// Messages are pulled from the reader as they are read, and the
/// reader only ever gets `window_bytes` (plus the batch it is filling)
/// ahead of the writer: with a slow sink the read-ahead stays bounded
/// instead of growing to the whole input.
#[test]
fn the_window_bounds_the_read_ahead() {
    let window = 4096;
    let (input, seen, largest) = read_ahead_of(&Options {
        window_bytes: window,
        ..quiet(2, 2)
    });
    let bound = window + 3 * largest;
    assert!(seen <= bound, "read {seen} bytes ahead, bound {bound}");
    assert!(
        input.len() > 20 * bound,
        "the input is large enough to tell"
    );
}

/// With small messages the reader runs only `read_ahead_bytes` ahead
/// (plus the batch it is filling), however large the window.
#[test]
fn the_read_ahead_bounds_small_batches_within_the_window() {
    let read_ahead = 4096;
    let (input, seen, largest) = read_ahead_of(&Options {
        window_bytes: 1 << 20,
        read_ahead_bytes: read_ahead,
        ..quiet(2, 2)
    });
    let bound = read_ahead + 3 * largest;
    assert!(seen <= bound, "read {seen} bytes ahead, bound {bound}");
    assert!(input.len() > 20 * bound);
}

/// Messages larger than the read-ahead (but within the window) are still
/// worked on two at a time by two workers: a batch of `n` bytes may come in
/// while `(workers + 1) * n` are in flight. With the read-ahead as a hard
/// bound each went alone, and an archive of 3 MB texts took twice as long.
#[test]
fn large_messages_beyond_the_read_ahead_still_run_side_by_side() {
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    let input = make_padded_mbox(12, 64 << 10);
    let busy = AtomicUsize::new(0);
    let most = AtomicUsize::new(0);
    let opts = Options {
        window_bytes: 16 << 20,
        read_ahead_bytes: 1024,
        batch_messages: 1,
        ..quiet(2, 1)
    };
    let reader = MboxReader::new(&input[..], "input.mbox", FLAVOR);
    pipeline::run_ordered(
        reader,
        &opts,
        |m: &RawMessage| {
            let now = busy.fetch_add(1, SeqCst) + 1;
            most.fetch_max(now, SeqCst);
            std::thread::sleep(Duration::from_millis(20));
            busy.fetch_sub(1, SeqCst);
            m.index
        },
        |_, _| Ok::<(), MailboxError>(()),
    )
    .unwrap();
    assert_eq!(most.load(SeqCst), 2, "two workers busy at once");
}

/// A message larger than the whole window still goes through (alone),
/// and a sink error stops the reader instead of leaving it reading the
/// rest of the input.
#[test]
fn the_window_lets_a_large_message_through_and_a_sink_error_stops_the_reader() {
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    let input = make_padded_mbox(40, 4096);
    let opts = Options {
        window_bytes: 1,
        ..quiet(2, 8)
    };
    let mut order = Vec::new();
    let reader = MboxReader::new(&input[..], "input.mbox", FLAVOR);
    pipeline::run_ordered(
        reader,
        &opts,
        |m: &RawMessage| m.index,
        |_, &i| {
            order.push(i);
            Ok::<(), MailboxError>(())
        },
    )
    .unwrap();
    assert_eq!(order, (0..40).collect::<Vec<_>>());

    let input = make_mbox(2000);
    let pulled = AtomicUsize::new(0);
    let reader = MboxReader::new(&input[..], "input.mbox", FLAVOR).inspect(|_| {
        pulled.fetch_add(1, SeqCst);
    });
    let opts = Options {
        window_bytes: 2048,
        ..quiet(2, 4)
    };
    let r = pipeline::run_ordered(
        reader,
        &opts,
        |m: &RawMessage| m.index,
        |_, &i| {
            if i == 50 {
                // Time for an unbounded reader to read everything.
                std::thread::sleep(Duration::from_millis(50));
                return Err(MailboxError::OutputExists {
                    path: "sink".into(),
                });
            }
            Ok(())
        },
    );
    assert!(r.is_err());
    // Without the stop the reader would wait for room forever (the test
    // would hang); without the window it would have read all 2000.
    let pulled = pulled.load(SeqCst);
    assert!((51..200).contains(&pulled), "{pulled} of 2000 read");
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        /// Whatever the jobs, batch limits and window, every message is
        /// handed over exactly once, in input order, with its own result.
        #[test]
        fn every_message_once_in_order(
            n in 0usize..120,
            pad in 0usize..2048,
            jobs in 1usize..5,
            batch_messages in 1usize..9,
            batch_bytes in 1usize..16384,
            window_bytes in 1usize..32768,
        ) {
            let input = make_padded_mbox(n, pad);
            let opts = Options {
                batch_bytes,
                window_bytes,
                ..quiet(jobs, batch_messages)
            };
            let reader = MboxReader::new(&input[..], "input.mbox", FLAVOR);
            let mut seen = Vec::new();
            pipeline::run_ordered(
                reader,
                &opts,
                |m: &RawMessage| {
                    // Uneven, so that batches finish out of order.
                    std::thread::sleep(Duration::from_micros(((m.index * 7919) % 5) as u64 * 50));
                    (m.index, m.bytes.len())
                },
                |m, &(i, len)| {
                    prop_assert_eq!((m.index, m.bytes.len()), (i, len));
                    seen.push(i);
                    Ok::<(), TestCaseError>(())
                },
            )?;
            prop_assert_eq!(seen, (0..n).collect::<Vec<_>>());
        }
    }
}

/// Results are freed on the pool, not by the thread that writes them
/// (glibc's malloc frees another thread's memory under that thread's
/// arena lock): during the run by the worker that computed them, at its
/// next batch; at the end, what is left, by any worker.
#[test]
fn results_are_freed_on_the_workers() {
    use std::sync::Mutex;
    /// Notes the thread it is dropped on.
    struct Result<'a>(&'a Mutex<Vec<Option<String>>>);
    impl Drop for Result<'_> {
        fn drop(&mut self) {
            let name = std::thread::current().name().map(str::to_string);
            self.0.lock().unwrap().push(name);
        }
    }
    let dropped_on = Mutex::new(Vec::new());
    let input = make_mbox(400);
    let reader = MboxReader::new(&input[..], "input.mbox", FLAVOR);
    let mut seen = 0;
    pipeline::run_ordered(
        reader,
        &quiet(2, 2),
        |_: &RawMessage| Result(&dropped_on),
        |_, _| {
            seen += 1;
            Ok::<(), MailboxError>(())
        },
    )
    .unwrap();
    assert_eq!(seen, 400);
    let names = dropped_on.into_inner().unwrap();
    assert_eq!(names.len(), 400, "every result is dropped once");
    let on_workers = names
        .iter()
        .filter(|n| n.as_deref().is_some_and(|n| n.starts_with("mailcharset-")))
        .count();
    assert_eq!(on_workers, 400, "{names:?}");
}

/// A result that panics when it is dropped (on the worker, which frees
/// results at its next batch) is a panic of the run, passed on to the
/// caller: not a batch that never comes back and a run that waits for it.
#[test]
fn a_panic_while_freeing_a_result_reaches_the_caller() {
    struct Bomb(usize);
    impl Drop for Bomb {
        fn drop(&mut self) {
            if self.0 == 25 && !std::thread::panicking() {
                panic!("dropping result 25");
            }
        }
    }
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let input = make_padded_mbox(400, 1024);
        let reader = MboxReader::new(&input[..], "input.mbox", FLAVOR);
        let opts = Options {
            window_bytes: 64 << 10,
            ..quiet(2, 2)
        };
        let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pipeline::run_ordered(
                reader,
                &opts,
                |m: &RawMessage| Bomb(m.index),
                |_, _| Ok::<(), MailboxError>(()),
            )
        }));
        let _ = done_tx.send(got.is_err());
    });
    let panicked = done_rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the run ends (it hung waiting for a batch)");
    assert!(panicked, "the panic reaches the caller");
}

/// A message larger than the window goes through alone, and its result is
/// freed once written (not held for the worker's next batch): one result
/// alive at a time.
#[test]
fn results_of_messages_larger_than_the_window_are_not_held() {
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    struct Counted<'a>(&'a AtomicUsize);
    impl Drop for Counted<'_> {
        fn drop(&mut self) {
            self.0.fetch_sub(1, SeqCst);
        }
    }
    let live = AtomicUsize::new(0);
    let most = AtomicUsize::new(0);
    let input = make_padded_mbox(8, 256 << 10);
    let reader = MboxReader::new(&input[..], "input.mbox", FLAVOR);
    let opts = Options {
        window_bytes: 64 << 10,
        ..quiet(2, 1)
    };
    pipeline::run_ordered(
        reader,
        &opts,
        |_: &RawMessage| {
            let n = live.fetch_add(1, SeqCst) + 1;
            most.fetch_max(n, SeqCst);
            Counted(&live)
        },
        |_, _| Ok::<(), MailboxError>(()),
    )
    .unwrap();
    assert_eq!(live.load(SeqCst), 0);
    assert_eq!(most.load(SeqCst), 1, "results alive at once");
}
