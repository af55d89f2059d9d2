//! Label lookup: a label as written (any case, quoted, with an RFC 2231
//! language suffix or quoted-printable damage) to its [`Charset`] and
//! [`LabelStatus`], through a perfect hash over the generated registry;
//! a label not found there is compared on its letters and digits.

use super::{Charset, Resolution, registry};
use crate::finding::LabelStatus;

/// Longest label we look up (IANA names are at most 40 characters; the
/// longest, with aliases and misspellings, is 45).
const MAX_LABEL: usize = 64;

/// Normalises a label into `buf` (zero-filled beyond the label, which the
/// hash relies on): trims ASCII whitespace and quotes, drops an RFC 2231/2047
/// language suffix (`*en`), lower-cases ASCII. Returns the length.
fn normalize(label: &[u8], buf: &mut [u8; MAX_LABEL]) -> Option<usize> {
    let trim = |b: &u8| b.is_ascii_whitespace() || *b == b'"' || *b == b'\'';
    let start = label.iter().position(|b| !trim(b))?;
    let end = label.iter().rposition(|b| !trim(b))? + 1;
    // Copy, lower-casing, up to a `*language` suffix.
    let mut n = 0;
    for &b in &label[start..end] {
        if b == b'*' {
            break;
        }
        *buf.get_mut(n)? = b.to_ascii_lowercase();
        n += 1;
    }
    while n > 0 && trim(&buf[n - 1]) {
        n -= 1;
        buf[n] = 0;
    }
    (n > 0).then_some(n)
}

/// The label hash (the generator's perfect hash uses the same): 8 bytes at
/// a time (zero-padded), multiply and xor-shift. `buf` is zero beyond `n`.
fn label_hash(buf: &[u8; MAX_LABEL], n: usize) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = n as u64;
    let mut i = 0;
    while i < n {
        let mut w = [0u8; 8];
        w.copy_from_slice(&buf[i..i + 8]);
        h = (h ^ u64::from_le_bytes(w)).wrapping_mul(K);
        h ^= h >> 29;
        i += 8;
    }
    h = h.wrapping_mul(K);
    h ^ (h >> 32)
}

/// Perfect-hash lookup of a normalised label (no allocation, one compare).
fn lookup(buf: &[u8; MAX_LABEL], n: usize) -> Option<(&'static Charset, LabelStatus)> {
    let h = label_hash(buf, n);
    let bucket = ((h >> 40) as usize) % registry::HASH_BUCKETS;
    let d = u32::from(registry::LABEL_DISP[bucket]);
    let (h1, h2) = (h as u32, ((h >> 32) as u32) | 1);
    let slot = (h1.wrapping_add(d.wrapping_mul(h2)) as usize) % registry::HASH_SLOTS;
    let &(label, idx, status) = registry::LABELS.get(usize::from(registry::LABEL_SLOTS[slot]))?;
    (label == &buf[..n]).then(|| (&registry::CHARSETS[usize::from(idx)], status))
}

/// Resolves a label (None = no label at all). ASCII case-insensitive; trims
/// whitespace and quotes; drops a `*lang` suffix; a label damaged by
/// quoted-printable (`3diso-8859-1`), written twice (`charset=us-ascii`)
/// or spelt with other punctuation (Unicode TR #22 charset alias
/// matching: `latin-1`, `euc_kr`) resolves with status `alias`.
#[must_use]
pub fn resolve(label: Option<&[u8]>) -> Resolution {
    let Some(label) = label else {
        return Resolution {
            charset: None,
            status: LabelStatus::Missing,
        };
    };
    let mut buf = [0u8; MAX_LABEL];
    let found = normalize(label, &mut buf).and_then(|n| {
        lookup(&buf, n).or_else(|| {
            // Quoted-printable damage ("3d" + a label), a parameter written
            // twice (`charset="charset=us-ascii"`), then the label spelt
            // with other punctuation.
            let rest = [&b"3d"[..], b"charset="]
                .iter()
                .find_map(|p| buf[..n].strip_prefix(*p))
                .filter(|r| !r.is_empty())
                .unwrap_or(&buf[..n]);
            let stripped = if rest.len() < n {
                let mut again = [0u8; MAX_LABEL];
                again[..rest.len()].copy_from_slice(rest);
                lookup(&again, rest.len()).map(|(c, _)| c)
            } else {
                None
            };
            stripped
                .or_else(|| loose(rest))
                .map(|c| (c, LabelStatus::Alias))
        })
    });
    match found {
        Some((c, status)) => Resolution {
            charset: Some(c),
            status,
        },
        None => Resolution {
            charset: None,
            status: LabelStatus::Unknown,
        },
    }
}

/// The charset alias matching of Unicode Technical Report #22 (section
/// 1.4), as ICU and Java apply it: a label compared on its ASCII letters
/// and digits only, case-folded, a `0` that does not follow a digit
/// directly dropped (`cp-0437` is `cp437`). Mail writes labels in a
/// program's own spelling: `latin-1`, `iso8859_15`, `euc_kr` (Python's
/// codec names), `ANSI-X3.4-1968`, `windows1252`. A key two charsets'
/// labels share resolves to neither.
fn loose(label: &[u8]) -> Option<&'static Charset> {
    use std::collections::HashMap;
    use std::sync::OnceLock;
    static KEYS: OnceLock<HashMap<Vec<u8>, Option<u16>>> = OnceLock::new();
    let keys = KEYS.get_or_init(|| {
        let mut keys: HashMap<Vec<u8>, Option<u16>> = HashMap::new();
        for &(l, i, _) in &registry::LABELS {
            let e = keys.entry(loose_key(l)).or_insert(Some(i));
            if *e != Some(i) {
                *e = None;
            }
        }
        keys
    });
    let key = loose_key(label);
    if key.is_empty() {
        return None;
    }
    let i = (*keys.get(&key)?)?;
    Some(&registry::CHARSETS[usize::from(i)])
}

/// A label's key for [`loose`].
fn loose_key(label: &[u8]) -> Vec<u8> {
    let mut key = Vec::with_capacity(label.len());
    let mut after_digit = false;
    for &b in label {
        if !b.is_ascii_alphanumeric() {
            after_digit = false;
        } else if b != b'0' || after_digit {
            key.push(b.to_ascii_lowercase());
            after_digit = b.is_ascii_digit();
        }
    }
    key
}

/// Every label in the registry with its charset and status (lower-case).
pub fn labels() -> impl Iterator<Item = (&'static str, &'static Charset, LabelStatus)> {
    registry::LABELS.iter().map(|&(l, i, s)| {
        (
            std::str::from_utf8(l).unwrap_or(""),
            &registry::CHARSETS[usize::from(i)],
            s,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Loose matching never contradicts an exact label: every label of the
    /// registry resolves loosely to its own charset, or to none when its
    /// key is shared with another charset's label; and the keys shared
    /// are few.
    #[test]
    fn loose_matching_agrees_with_every_exact_label() {
        let mut shared = Vec::new();
        for (l, c, _) in labels() {
            match loose(l.as_bytes()) {
                Some(d) => assert!(
                    std::ptr::eq(c, d),
                    "{l}: {} loosely, {} exactly",
                    d.name(),
                    c.name()
                ),
                None => shared.push(l),
            }
        }
        assert!(shared.len() <= 8, "{shared:?}");
    }

    /// A label as mail writes it around the name resolves exactly as the
    /// bare name does, status included (loose matching would find the
    /// charset too, but as an `alias`): white space and quotes trimmed at
    /// both ends, before a `*language` suffix too, and case folded.
    /// (Mutation testing found the trimming untested.)
    #[test]
    fn trimming_and_language_suffix_keep_the_exact_status() {
        for (written, bare) in [
            (&b"  \"UTF-8\"\t"[..], &b"utf-8"[..]),
            (b"'iso-8859-1'", b"iso-8859-1"),
            (b"\"'koi8-r'\"", b"koi8-r"),
            (b"us-ascii *en", b"us-ascii"),
            (b"ISO-2022-JP\t*ja", b"iso-2022-jp"),
            (b"\"big5\"*zh-tw", b"big5"),
            (b"windows-1252'*", b"windows-1252"),
        ] {
            let (w, b) = (resolve(Some(written)), resolve(Some(bare)));
            let name = String::from_utf8_lossy(written);
            assert!(b.charset.is_some(), "{name}: the bare label is known");
            assert!(
                w.charset.map(Charset::name) == b.charset.map(Charset::name),
                "{name}: charset"
            );
            assert_eq!(w.status, b.status, "{name}: status");
        }
        for blank in [&b""[..], b"  ", b"\"\"", b"' '", b"*en", b" \"*de"] {
            assert_eq!(resolve(Some(blank)).charset.map(Charset::name), None);
        }
    }
}
