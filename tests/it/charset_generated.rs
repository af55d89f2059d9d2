//! The generated files in the repository are what the generators produce
//! from ../shared/corpus (or Python's own codecs) today (nobody edited them
//! by hand, nobody forgot to regenerate). Skips (visibly; a failure in CI)
//! without python3 or the corpus.

use crate::common;
use std::path::Path;
use std::process::Command;

fn check(generator: &str, outputs: &[&str]) {
    if common::corpus(generator).is_none() {
        return;
    }
    run(generator, outputs);
}

/// [`check`] for a generator that reads no corpus (Python's codecs are its
/// source).
fn run(generator: &str, outputs: &[&str]) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let status = match Command::new("python3")
        .arg(root.join(generator))
        .env("GEN_OUT_DIR", dir.path())
        .status()
    {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            common::skip(generator, "python3 is not installed");
            return;
        }
        Err(e) => panic!("{generator}: python3 could not start: {e}"),
    };
    assert!(status.success(), "{generator} failed");
    for out in outputs {
        let name = Path::new(out).file_name().unwrap();
        let fresh = std::fs::read(dir.path().join(name)).unwrap();
        let shipped = std::fs::read(root.join(out)).unwrap();
        assert!(fresh == shipped, "{out} is stale: run python3 {generator}");
    }
}

#[test]
fn registry_is_current() {
    check(
        "tools/gen_registry.py",
        &["src/charset/registry.rs", "doc/charset-aliases.md"],
    );
}

#[test]
fn hangul_table_is_current() {
    check("tools/gen_hangul.py", &["src/codec/hangul_table.rs"]);
}

#[test]
fn single_byte_tables_are_current() {
    run(
        "tools/gen_single_byte.py",
        &["src/charset/single_byte_tables.rs"],
    );
}

#[test]
fn johab_tables_are_current() {
    run("tools/gen_johab.py", &["src/charset/johab_tables.rs"]);
}
