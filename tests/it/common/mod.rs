//! Shared by the integration tests: where the third-party corpus and the
//! fixtures are, how a check that cannot run says so (never a silent
//! pass), and how oracle programs are run.

#![allow(dead_code)] // each test binary uses part of this

use std::path::{Path, PathBuf};

/// Whether a check that cannot run is a failure: `.ci/run` sets
/// `MAILCHARSET_REQUIRE_ORACLES=1`, so that CI never passes a check that
/// did not happen (the corpus, python3 or perl missing).
pub fn required() -> bool {
    std::env::var_os("MAILCHARSET_REQUIRE_ORACLES").is_some_and(|v| v != "0" && !v.is_empty())
}

/// Records that `test` could not run a check, and why. The line goes to the
/// process's stderr handle directly, which `cargo test` does not capture,
/// so a skipped check shows in the output of a passing run (and the count
/// is kept in `CARGO_TARGET_TMPDIR/skipped.txt`). Under [`required`] it is
/// a failure instead.
pub fn skip(test: &str, reason: &str) {
    use std::io::Write;
    if required() {
        panic!("{test}: {reason}; MAILCHARSET_REQUIRE_ORACLES is set, so this check must run");
    }
    let line = format!("SKIPPED {test}: {reason}\n");
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
    let log = Path::new(env!("CARGO_TARGET_TMPDIR")).join("skipped.txt");
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
    {
        let _ = f.write_all(line.as_bytes());
    }
}

/// `../shared/corpus`, or None (a skip recorded) when it is absent.
pub fn corpus(test: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if dir.is_dir() {
        Some(dir)
    } else {
        skip(test, "../shared/corpus is absent");
        None
    }
}

/// A file of the corpus (`rel` under `../shared/corpus`): None (a skip
/// recorded) when the corpus is absent; a failure when the corpus is there
/// and the file is not (a moved or renamed file must not quietly turn a
/// check off).
pub fn corpus_file(test: &str, rel: &str) -> Option<PathBuf> {
    let dir = corpus(test)?;
    let p = dir.join(rel);
    assert!(
        p.exists(),
        "{test}: the corpus is present but {} is missing",
        p.display()
    );
    Some(p)
}

/// [`corpus_file`], read.
pub fn corpus_bytes(test: &str, rel: &str) -> Option<Vec<u8>> {
    let p = corpus_file(test, rel)?;
    Some(std::fs::read(&p).unwrap_or_else(|e| panic!("{test}: {}: {e}", p.display())))
}

/// Runs an oracle program (`python3`, `perl`) with `args`, `input` on its
/// stdin, and returns its stdout. None (a skip recorded) only when the
/// program is not there; a program that starts and then fails, dies or
/// stops reading fails the test.
pub fn oracle(test: &str, program: &str, args: &[&str], input: &[u8]) -> Option<Vec<u8>> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            skip(
                test,
                &format!("{program} is not installed, its oracle check did not run"),
            );
            return None;
        }
        Err(e) => panic!("{test}: {program} could not be started: {e}"),
    };
    let mut stdin = child.stdin.take().expect("piped stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("{test}: waiting for {program}: {e}"));
    assert!(
        out.status.success(),
        "{test}: {program} failed: {}",
        out.status
    );
    writer
        .join()
        .expect("writer thread")
        .unwrap_or_else(|e| panic!("{test}: {program} did not read its input: {e}"));
    Some(out.stdout)
}

/// The repository's own fixtures folder.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Every file under `dir` (recursively) whose name passes `keep`, sorted.
pub fn files_under(dir: &Path, keep: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if keep(&p) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Every message file in the corpus: .eml, .txt/.msg message files of the
/// mail test suites (not the Unicode or charset data).
pub fn corpus_messages(corpus: &Path) -> Vec<PathBuf> {
    let skip_dirs = [
        "unicode-ucd-historic",
        "whatwg-encoding",
        "iana-charsets",
        "kuhn-utf8",
    ];
    files_under(corpus, &|p: &Path| {
        let s = p.to_string_lossy();
        if skip_dirs.iter().any(|d| s.contains(d)) {
            return false;
        }
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        name.ends_with(".eml")
            || (s.contains("cpython-test-email") && name.starts_with("msg_"))
            || (s.contains("mimekit") && s.contains("/messages/"))
            || (s.contains("spamassassin-t-data") && !name.contains('.'))
            || (s.contains("enmime/testdata/mail") && name.ends_with(".raw"))
    })
}

/// `text` with every bare LF turned into CRLF.
pub fn to_crlf(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + text.len() / 32);
    for (i, &b) in text.iter().enumerate() {
        if b == b'\n' && (i == 0 || text[i - 1] != b'\r') {
            out.push(b'\r');
        }
        out.push(b);
    }
    out
}

/// Whether `python3` can import `module`; false (a skip recorded) when it
/// cannot, and the test should skip its Python oracle.
pub fn python_has(test: &str, module: &str) -> bool {
    let ok = std::process::Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        skip(
            test,
            &format!("python3 with the {module} module is missing"),
        );
    }
    ok
}

/// Runs `python3 -c script` with `input` on stdin (see [`oracle`]).
pub fn python(test: &str, script: &str, input: &[u8]) -> Option<Vec<u8>> {
    oracle(test, "python3", &["-c", script], input)
}

/// Makes `path` (a file, or a directory and everything in it) an hour
/// old, as a killed run's temporary is by the time a later run looks at it.
pub fn backdate(path: &Path) {
    if path.is_dir() {
        for e in std::fs::read_dir(path).unwrap() {
            backdate(&e.unwrap().path());
        }
    }
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::open(path)
        .unwrap()
        .set_modified(hour_ago)
        .unwrap();
}

/// Makes `path` look modified an hour from now: "just modified" for a
/// check of how long nothing changed, however slowly the test runs.
pub fn postdate(path: &Path) {
    let hour_on = std::time::SystemTime::now() + std::time::Duration::from_secs(3600);
    std::fs::File::open(path)
        .unwrap()
        .set_modified(hour_on)
        .unwrap();
}

/// The hidden temporaries (`.NAME.*.mailcharset-tmp`) directly in `dir`.
pub fn temporaries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .ends_with(".mailcharset-tmp")
        })
        .map(|e| e.path())
        .collect();
    v.sort();
    v
}

/// CESU-8 of `s`: each UTF-16 code unit (std's encoding) written as the
/// 1-3 octet UTF-8 form of its value, surrogates included.
pub fn cesu8(s: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for u in s.encode_utf16() {
        let u = u32::from(u);
        match u {
            0..=0x7F => out.push(u as u8),
            0x80..=0x7FF => out.extend([0xC0 | (u >> 6) as u8, 0x80 | (u & 0x3F) as u8]),
            _ => out.extend([
                0xE0 | (u >> 12) as u8,
                0x80 | ((u >> 6) & 0x3F) as u8,
                0x80 | (u & 0x3F) as u8,
            ]),
        }
    }
    out
}

/// Every name in `dir` (dot files included), sorted.
pub fn entry_names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// `bytes` as text for a snapshot: UTF-8 as it is, every other octet as
/// `\xNN` (a lossy conversion would show any kept octet as U+FFFD, and a
/// change to it could not show).
pub fn escape_octets(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}
