//! Crash safety of the real normalizer: `mailcharset normalize` killed in
//! the middle of an archive leaves no output under the final name, and a
//! plain re-run gives exactly the bytes of an uninterrupted run.

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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

    let out_dir = tmp.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let output = out_dir.join("archive.mbox");
    let mut child = normalize(&input, &output).spawn().unwrap();
    // Kill it once it has started writing its temporary file (or after a
    // while, if the machine is so fast that it never shows).
    let start = Instant::now();
    while common::temporaries(&out_dir).is_empty() && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(2));
    }
    let finished_first = child.try_wait().unwrap().is_some();
    child.kill().ok();
    child.wait().unwrap();
    if finished_first {
        eprintln!("note: the run finished before it could be killed; only the re-run is checked");
    } else {
        assert!(
            !output.exists(),
            "no half-written output under the final name"
        );
    }
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
