//! Crash safety of the real normalizer: `mailcharset normalize` killed in
//! the middle of an archive leaves no output under the final name, and a
//! plain re-run gives exactly the bytes of an uninterrupted run.

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// An mbox of every fixture, repeated until it is about `bytes` long.
fn archive(path: &Path, bytes: usize) {
    let dir = common::fixtures().join("messages");
    let files = common::files_under(&dir, &|p| p.extension().is_some_and(|e| e == "eml"));
    let msgs: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    let mut out = Vec::with_capacity(bytes + 4096);
    let mut i = 0usize;
    while out.len() < bytes {
        out.extend_from_slice(
            format!("From fixture-{i}@example.org Tue Mar 10 12:00:00 2009\n").as_bytes(),
        );
        out.extend_from_slice(&msgs[i % msgs.len()]);
        out.extend_from_slice(b"\n");
        i += 1;
    }
    std::fs::write(path, out).unwrap();
}

fn normalize(input: &Path, output: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mailcharset"));
    c.args(["normalize", "-q", "--jobs", "2"])
        .arg(input)
        .arg("-o")
        .arg(output)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

#[test]
fn killed_run_then_rerun_equals_uninterrupted_run() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("archive.mbox");
    archive(&input, 24 << 20);
    let reference = tmp.path().join("reference.mbox");
    assert!(normalize(&input, &reference).status().unwrap().success());

    // The killed run reads the archive through a FIFO that this test feeds
    // with its first 16 MB only: it cannot finish, whatever the machine's
    // speed. It is killed once 4 MiB of output have reached its temporary.
    let bytes = std::fs::read(&input).unwrap();
    let fifo = tmp.path().join("archive.fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let out_dir = tmp.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let output = out_dir.join("archive.mbox");
    let mut child = normalize(&fifo, &output).spawn().unwrap();
    let (stop_tx, stop_rx) = std::sync::mpsc::channel::<()>();
    let feeder = {
        let fifo = fifo.clone();
        let head = bytes[..16 << 20].to_vec();
        std::thread::spawn(move || {
            let mut f = std::fs::OpenOptions::new().write(true).open(fifo).unwrap();
            // The child is killed part-way: the rest meets a closed pipe.
            let _ = std::io::Write::write_all(&mut f, &head);
            // Hold the FIFO open (no end of input) until told to stop.
            let _ = stop_rx.recv();
        })
    };
    let written = |dir: &Path| -> u64 {
        common::temporaries(dir)
            .iter()
            .filter_map(|p| std::fs::metadata(p).ok())
            .map(|m| m.len())
            .sum()
    };
    // A count, not a clock, bounds the wait (a guard against a child that
    // never starts).
    let mut polls = 0;
    while written(&out_dir) < 4 << 20 {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended on its own"
        );
        polls += 1;
        assert!(polls < 60_000, "no output reached the temporary");
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(
        child.try_wait().unwrap().is_none(),
        "killed mid-run, not after it finished"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    let _ = stop_tx.send(());
    feeder.join().unwrap();
    assert!(
        !output.exists(),
        "no half-written output under the final name"
    );
    assert!(
        written(&out_dir) >= 4 << 20,
        "the killed run's temporary is left"
    );
    // What the killed run left, once left alone a while, the re-run clears.
    common::temporaries(&out_dir)
        .iter()
        .for_each(|p| common::backdate(p));
    assert!(
        normalize(&input, &output).status().unwrap().success(),
        "a plain re-run works"
    );
    assert_eq!(
        common::temporaries(&out_dir),
        Vec::<std::path::PathBuf>::new()
    );
    assert_eq!(
        std::fs::read(&output).unwrap(),
        std::fs::read(&reference).unwrap(),
        "re-run output is byte-identical to an uninterrupted run"
    );
}
