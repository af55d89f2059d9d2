//! Every message of the linux-mips slice, decoded whole under the first
//! charset label it carries (and unlabelled): nothing panics, the verdict
//! agrees with the replacement count, and 7-bit messages come back borrowed
//! and unchanged under every ASCII-compatible label (unless, under us-ascii
//! or none, they hold ISO-2022-JP text, which is then read as such).

use crate::common;
use mailcharset::charset::{Charset, DecodeOptions, decode};
use mailcharset::finding::Verdict;
use std::borrow::Cow;

#[test]
fn linux_mips_messages_decode() {
    let Some(manifest) = common::corpus_file(
        "linux_mips_messages_decode",
        "linux-mips-archive/MANIFEST.tsv",
    ) else {
        return;
    };
    let dir = manifest.parent().expect("the archive folder").to_path_buf();
    let manifest = std::fs::read_to_string(&manifest).expect("MANIFEST.tsv");
    let opts = DecodeOptions::default();
    let (mut n, mut seven, mut jp_found) = (0, 0, 0);
    let mut verdicts = std::collections::BTreeMap::new();
    for line in manifest.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        // A message MANIFEST lists and the corpus lacks fails the test.
        let bytes = std::fs::read(dir.join(f[0]))
            .unwrap_or_else(|e| panic!("{}: {e}", dir.join(f[0]).display()));
        let label = f[4].split(',').next().filter(|l| !l.is_empty());
        for l in [label, None] {
            let d = decode(&bytes, l.map(str::as_bytes), &opts);
            assert_eq!(
                d.verdict == Verdict::Invalid,
                d.replacements > 0,
                "{}",
                f[0]
            );
            *verdicts.entry(d.verdict.as_str()).or_insert(0) += 1;
            // ISO-2022-JP escapes in 7-bit text that a label reads as
            // ASCII (us-ascii, none) are read as ISO-2022-JP
            // (doc/charset-decision.md).
            let jp = d.used.is_some_and(|c| c.name() == "ISO-2022-JP");
            if jp && f[6] == "0" {
                assert_eq!(d.replacements, 0, "{}", f[0]);
                assert!(!d.text.contains('\x1b'), "{}", f[0]);
                jp_found += 1;
            } else if f[6] == "0"
                && l.and_then(|l| Charset::for_label(l.as_bytes()))
                    .is_none_or(|c| c.is_ascii_compatible())
            {
                assert!(matches!(d.text, Cow::Borrowed(_)), "{}", f[0]);
                assert_eq!(d.text.as_bytes(), &bytes[..]);
                seven += 1;
            }
        }
        n += 1;
    }
    println!(
        "{n} messages; 7-bit decodes checked: {seven}; read as ISO-2022-JP: \
         {jp_found}; verdicts: {verdicts:?}"
    );
    assert!(n > 4000, "{n}");
    assert!(seven > 1000);
    // The linux-mips archive has ISO-2022-JP mail sent as 7-bit text: a
    // reading that stopped finding it would pass the loop above unseen.
    assert!(jp_found > 0, "no 7-bit text read as ISO-2022-JP");
}
