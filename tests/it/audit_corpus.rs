//! The audit over `../shared/corpus/linux-mips-archive` (skipped when the
//! corpus is absent) against its MANIFEST.tsv, which lists per message the
//! `charset=` values and encoded-word labels found *anywhere in the raw
//! bytes*.
//!
//! Per message and per column, the labels of our records (lower-cased) are
//! compared with MANIFEST's:
//! - `charset_params` against records whose label is a Content-Type charset
//!   parameter (location `body` or `param:charset`);
//! - `encoded_word_charsets` against records of encoded-word runs.
//!
//! We never report a label MANIFEST lacks. Where MANIFEST has a label we do
//! not report, every occurrence of it in the raw bytes is located with the
//! part tree and must be in a place no audit of labelled text can see
//! (doc/audit.md, "MANIFEST classes"): the content of a part (quoted
//! replies, forwarded header blocks, HTML meta tags, QP-damaged `=3D`
//! text, code and prose), a multipart preamble or epilogue, or — for
//! `charset=` — a header field other than Content-Type. An occurrence in a
//! Content-Type field, or an encoded-word in a header field we decode, is a
//! failure. The per-label message counts then agree exactly once the
//! documented classes are subtracted.

use crate::common;

use mailcharset::audit::{AuditOptions, MessageContext, Source, audit_message};
use mailcharset::message::{Message, Part, PartKind};
use std::collections::{BTreeMap, BTreeSet};

/// Where an occurrence of a label sits.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Place {
    /// In the content of a leaf part; the string says what kind.
    Content(&'static str),
    PreambleOrEpilogue,
    /// In a header field that is not Content-Type (its lower-case name).
    OtherField(String),
    /// `charset=` with nothing after it on its line: MANIFEST's scan skips
    /// the line end and takes the next field's name as the label.
    EmptyValue,
    /// In a Content-Type field or a field we decode: we should have seen it.
    Visible(String),
}

impl Place {
    fn invisible(&self, column: Column) -> bool {
        match self {
            Place::Content(_) | Place::PreambleOrEpilogue | Place::EmptyValue => true,
            Place::OtherField(_) => column == Column::Params,
            Place::Visible(_) => false,
        }
    }

    fn class(&self) -> String {
        match self {
            Place::Content(k) => format!("content: {k}"),
            Place::PreambleOrEpilogue => "multipart preamble or epilogue".into(),
            Place::OtherField(n) => format!("header field {n}"),
            Place::EmptyValue => "empty charset= (the scan read the next line)".into(),
            Place::Visible(n) => format!("VISIBLE in {n}"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Column {
    Params,
    EncodedWords,
}

/// For each `[path, column, label]`: does Python's email package see the
/// label in a part's `charset` parameter (column Params) or in an
/// encoded-word of a header field of any part (EncodedWords)?
const PYTHON_VIEW: &str = r#"
import sys, json, re, email
from email import policy
word = re.compile(r'=\?([^?\s]+)\?[bBqQ]\?')
out = []
for path, column, label in json.load(sys.stdin):
    with open(path, 'rb') as f:
        msg = email.message_from_bytes(f.read(), policy=policy.compat32)
    seen = False
    for part in msg.walk():
        if column == 'Params':
            cs = part.get_param('charset')
            if isinstance(cs, tuple):
                cs = cs[2]
            if cs is not None and str(cs).strip().lower() == label:
                seen = True
        else:
            for _, v in part._headers:
                if any(m.group(1).lower() == label for m in word.finditer(str(v))):
                    seen = True
    out.append(seen)
print(json.dumps(out))
"#;

/// MANIFEST's `charset=` scan: `charset`, optional white space, `=`,
/// optional white space and quote, then the value up to white space, `"`,
/// `;`, `=`, `&` or `>`; ASCII case-insensitive, lower-cased. (Checked
/// against every row: it reproduces the column exactly.)
fn charset_params(raw: &[u8]) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let lower = raw.to_ascii_lowercase();
    for at in memchr::memmem::find_iter(&lower, b"charset") {
        let mut i = at + 7;
        while lower.get(i).is_some_and(|b| b.is_ascii_whitespace()) {
            i += 1;
        }
        if lower.get(i) != Some(&b'=') {
            continue;
        }
        i += 1;
        while lower.get(i).is_some_and(|b| b.is_ascii_whitespace()) {
            i += 1;
        }
        if lower.get(i) == Some(&b'"') {
            i += 1;
        }
        let start = i;
        while lower
            .get(i)
            .is_some_and(|&b| !b.is_ascii_whitespace() && !b"\";=&>".contains(&b))
        {
            i += 1;
        }
        if i > start {
            out.push((at, String::from_utf8_lossy(&lower[start..i]).into_owned()));
        }
    }
    out
}

/// MANIFEST's encoded-word scan: `=?`, a label without `?` or white space,
/// `?B?` or `?Q?`.
fn encoded_word_labels(raw: &[u8]) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for at in memchr::memmem::find_iter(raw, b"=?") {
        let rest = &raw[at + 2..];
        let n = rest
            .iter()
            .position(|&b| b == b'?' || b.is_ascii_whitespace())
            .unwrap_or(rest.len());
        if n == 0 || rest.get(n) != Some(&b'?') {
            continue;
        }
        if matches!(rest.get(n + 1), Some(b'b' | b'B' | b'q' | b'Q'))
            && rest.get(n + 2) == Some(&b'?')
        {
            out.push((at, String::from_utf8_lossy(&rest[..n]).to_ascii_lowercase()));
        }
    }
    out
}

fn line_at(raw: &[u8], o: usize) -> &[u8] {
    let start = raw[..o]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let end = memchr::memchr(b'\n', &raw[o..]).map_or(raw.len(), |i| o + i);
    &raw[start..end]
}

fn content_kind(raw: &[u8], o: usize, label: &str) -> &'static str {
    let line = line_at(raw, o).to_ascii_lowercase();
    let trimmed = line.trim_ascii_start();
    if label.starts_with("3d") || line.windows(3).any(|w| w == b"=3d") {
        "quoted-printable text (=3D) of a part"
    } else if trimmed.starts_with(b">") || trimmed.starts_with(b"|") {
        "quoted reply"
    } else if line.windows(5).any(|w| w == b"<meta") {
        "HTML meta tag"
    } else if [
        &b"content-type:"[..],
        b"to:",
        b"cc:",
        b"from:",
        b"subject:",
        b"reply-to:",
        b"x-",
    ]
    .iter()
    .any(|p| trimmed.starts_with(p))
        || line.starts_with(b" ")
        || line.starts_with(b"\t")
    {
        "header lines inside a body (forwarded, bounced or pasted)"
    } else {
        "code or prose"
    }
}

/// Locates offset `o` of `raw` in the part tree.
fn place(msg: &Message<'_>, raw: &[u8], o: usize, label: &str) -> Place {
    // `charset=` followed by a line end before the value.
    if raw[o..].len() > 8 && raw[o..o + 7].eq_ignore_ascii_case(b"charset") {
        let after_eq = memchr::memchr(b'=', &raw[o..]).map_or(o, |e| o + e + 1);
        let value_at =
            memchr::memmem::find(&raw[after_eq..].to_ascii_lowercase(), label.as_bytes())
                .map_or(after_eq, |v| after_eq + v);
        if raw[after_eq..value_at].contains(&b'\n') {
            return Place::EmptyValue;
        }
    }
    let deepest: Option<&Part<'_>> = msg
        .parts()
        .into_iter()
        .filter(|p| p.range.contains(&o))
        .max_by_key(|p| p.depth);
    let Some(part) = deepest else {
        return Place::Content("outside any part (mbox envelope)");
    };
    if o < part.body.start {
        let field = part
            .header
            .fields
            .iter()
            .find(|f| part.field_range(f).contains(&o));
        let Some(field) = field else {
            return Place::OtherField("(the empty line)".into());
        };
        let name = field.name_str().to_ascii_lowercase();
        let first_ct = part.header.get("content-type").map(|f| f.offset) == Some(field.offset);
        return if first_ct || name.is_empty() {
            Place::Visible(format!("field {name:?}"))
        } else if name == "content-type" {
            Place::OtherField("content-type (a second one)".into())
        } else {
            Place::OtherField(name)
        };
    }
    match &part.kind {
        PartKind::Multipart(m) => {
            if m.preamble.contains(&o) || m.epilogue.contains(&o) {
                Place::PreambleOrEpilogue
            } else {
                Place::Visible("a multipart body outside its parts".into())
            }
        }
        _ => Place::Content(content_kind(raw, o, label)),
    }
}

#[test]
fn manifest_labels_match_the_audit() {
    let Some(manifest) = common::corpus_file(
        "manifest_labels_match_the_audit",
        "linux-mips-archive/MANIFEST.tsv",
    ) else {
        return;
    };
    let root = manifest.parent().expect("the archive folder").to_path_buf();
    let manifest = std::fs::read_to_string(&manifest).expect("MANIFEST.tsv");
    let mut rows = 0;
    let mut failures: Vec<String> = Vec::new();
    // (column, label) -> messages in MANIFEST, in our audit, and hidden.
    let mut counts: BTreeMap<(Column, String), (usize, usize, usize)> = BTreeMap::new();
    // class -> (column, label) -> messages
    let mut classes: BTreeMap<String, BTreeMap<(Column, String), usize>> = BTreeMap::new();
    let mut scan_mismatch = 0;
    // (path, column, label) of every label the audit does not see.
    let mut hidden: Vec<(String, String, String)> = Vec::new();
    // Labels the audit does see: the oracle must see them too.
    let mut controls: Vec<(String, String, String)> = Vec::new();
    for line in manifest.lines().skip(1) {
        let c: Vec<&str> = line.split('\t').collect();
        assert!(c.len() >= 6, "bad MANIFEST row {line:?}");
        let raw = std::fs::read(root.join(c[0])).unwrap();
        rows += 1;
        let ctx = MessageContext {
            input: c[0],
            index: 0,
        };
        let records = audit_message(&raw, &ctx, &AuditOptions::default());
        let msg = Message::parse(&raw);
        for (column, manifest_col, source, scan) in [
            (Column::Params, c[4], Source::Body, charset_params(&raw)),
            (
                Column::EncodedWords,
                c[5],
                Source::EncodedWord,
                encoded_word_labels(&raw),
            ),
        ] {
            let theirs: BTreeSet<String> = manifest_col
                .split(',')
                .filter(|l| !l.is_empty())
                .map(String::from)
                .collect();
            // Our reading of MANIFEST's scan must reproduce the column.
            let scanned: BTreeSet<String> = scan.iter().map(|(_, l)| l.clone()).collect();
            if scanned != theirs {
                scan_mismatch += 1;
                failures.push(format!("{}: scan {scanned:?} != MANIFEST {theirs:?}", c[0]));
            }
            let ours: BTreeSet<String> = records
                .iter()
                .filter(|r| r.source == source)
                .filter_map(|r| r.label.as_deref())
                .map(|l| l.trim().to_ascii_lowercase())
                .collect();
            for l in &theirs {
                counts.entry((column, l.clone())).or_default().0 += 1;
            }
            for l in &ours {
                counts.entry((column, l.clone())).or_default().1 += 1;
                if controls.len() < 40 && rows % 50 == 1 {
                    controls.push((
                        root.join(c[0]).display().to_string(),
                        format!("{column:?}"),
                        l.clone(),
                    ));
                }
                if !theirs.contains(l) {
                    failures.push(format!("{}: {column:?} {l:?} not in MANIFEST", c[0]));
                }
            }
            for l in theirs.difference(&ours) {
                let places: Vec<Place> = scan
                    .iter()
                    .filter(|(_, x)| x == l)
                    .map(|&(o, _)| place(&msg, &raw, o, l))
                    .collect();
                if let Some(p) = places.iter().find(|p| !p.invisible(column)) {
                    failures.push(format!(
                        "{}: {column:?} {l:?} not audited but {}",
                        c[0],
                        p.class()
                    ));
                    continue;
                }
                counts.entry((column, l.clone())).or_default().2 += 1;
                hidden.push((
                    root.join(c[0]).display().to_string(),
                    format!("{column:?}"),
                    l.clone(),
                ));
                // A message is counted once, under the first place.
                let class = places.first().map_or("?".into(), Place::class);
                *classes
                    .entry(class)
                    .or_default()
                    .entry((column, l.clone()))
                    .or_default() += 1;
            }
        }
    }
    eprintln!("MANIFEST labels the audit cannot see, by class (messages):");
    for (class, labels) in &classes {
        let total: usize = labels.values().sum();
        eprintln!("  {class}: {total}");
        for ((column, l), n) in labels {
            eprintln!("      {column:?} {l}: {n}");
        }
    }
    assert!(rows >= 4000, "only {rows} MANIFEST rows");
    assert_eq!(scan_mismatch, 0, "{}", failures.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // An independent reader agrees that these labels are not in any part's
    // Content-Type or header field: Python's email package, walking every
    // part (encapsulated messages included).
    let request: Vec<_> = hidden.iter().chain(&controls).collect();
    let request = serde_json::to_vec(&request).unwrap();
    if let Some(out) = common::python("manifest_labels_match_the_audit", PYTHON_VIEW, &request) {
        let seen: Vec<bool> = serde_json::from_slice(&out).unwrap();
        assert_eq!(seen.len(), hidden.len() + controls.len());
        let (seen, control_seen) = seen.split_at(hidden.len());
        assert!(controls.len() >= 20, "only {} controls", controls.len());
        let blind: Vec<_> = controls
            .iter()
            .zip(control_seen)
            .filter(|(_, s)| !**s)
            .collect();
        assert!(
            blind.is_empty(),
            "the oracle misses audited labels: {blind:?}"
        );
        let visible: Vec<_> = hidden
            .iter()
            .zip(seen)
            .filter(|(_, s)| **s)
            .map(|(h, _)| h)
            .collect();
        assert!(
            visible.is_empty(),
            "Python's email package sees labels the audit does not: {visible:?}"
        );
        eprintln!(
            "Python's email package confirms all {} hidden labels",
            hidden.len()
        );
    }
    // The classes and their sizes are the ones doc/audit.md documents (a
    // change in what the audit sees shows here, not only in the per-label
    // arithmetic, which holds by construction once nothing failed above).
    let sizes: BTreeMap<&str, usize> = classes
        .iter()
        .map(|(c, labels)| (c.as_str(), labels.values().sum()))
        .collect();
    let documented: BTreeMap<&str, usize> = [
        ("content: quoted-printable text (=3D) of a part", 226),
        ("content: code or prose", 85),
        (
            "content: header lines inside a body (forwarded, bounced or pasted)",
            16,
        ),
        ("content: quoted reply", 12),
        ("content: HTML meta tag", 4),
        ("empty charset= (the scan read the next line)", 2),
    ]
    .into_iter()
    .collect();
    assert_eq!(sizes, documented, "update doc/audit.md's MANIFEST classes");
    // The labels that matter are there with MANIFEST's counts.
    for (label, min) in [
        ("utf-8", 600),
        ("gb2312", 300),
        ("koi8-r", 150),
        ("big5", 80),
    ] {
        let (_, ours, _) = counts[&(Column::Params, label.to_string())];
        assert!(ours >= min, "{label}: only {ours} messages");
    }
}
