//! Shared by the integration tests: where the third-party corpus and the
//! fixtures are, and how to skip when the corpus is absent.

#![allow(dead_code)] // each test binary uses part of this

use std::path::{Path, PathBuf};

/// `../shared/corpus`, or None (with a printed note) when it is absent.
pub fn corpus(test: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("note: {test}: skipped, ../shared/corpus is absent");
        None
    }
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

/// Whether `python3` can import `module`; false (with a note naming `test`)
/// when it cannot, and the test should skip its Python oracle.
pub fn python_has(test: &str, module: &str) -> bool {
    let ok = std::process::Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("note: {test}: python3 with {module} missing, oracle skipped");
    }
    ok
}

/// Runs `python3 -c script` with `input` on stdin; None (with a note) when
/// python3 is not available.
pub fn python(test: &str, script: &str, input: &[u8]) -> Option<Vec<u8>> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let child = Command::new("python3")
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn();
    let Ok(mut child) = child else {
        eprintln!("note: {test}: python3 not available, oracle skipped");
        return None;
    };
    let mut stdin = child.stdin.take()?;
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().ok()?;
    let _ = writer.join();
    assert!(out.status.success(), "{test}: python3 failed");
    Some(out.stdout)
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
