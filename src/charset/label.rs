//! Label lookup: a label as written (any case, quoted, with an RFC 2231
//! language suffix or quoted-printable damage) to its [`Charset`] and
//! [`LabelStatus`], through a perfect hash over the generated registry.

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
/// quoted-printable (`3diso-8859-1`) resolves with status `alias`.
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
            // Quoted-printable damage: "3d" + a label.
            if n <= 2 || &buf[..2] != b"3d" {
                return None;
            }
            let mut rest = [0u8; MAX_LABEL];
            rest[..n - 2].copy_from_slice(&buf[2..n]);
            lookup(&rest, n - 2).map(|(c, _)| (c, LabelStatus::Alias))
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
