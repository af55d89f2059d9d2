//! gzip-compressed inputs (RFC 1952), as `audit` and `normalize` read
//! them: list archives (Mailman's `2005-January.txt.gz`), rotated spools,
//! Dovecot's compressed Maildir files. Every member is read, as `gzip -d`
//! reads concatenated files. Damaged compressed data ends the input where
//! it is damaged: what was decompressed before is read, and the damage is
//! reported with the decompressed length reached. `normalize` writes a file
//! whose messages it changed compressed again ([`deflate_like`])
//! (doc/mailbox.md, "Compressed inputs").

use std::io::{self, BufReader, Read};
use std::sync::{Arc, Mutex};

use flate2::bufread::MultiGzDecoder;

/// Whether `head` starts like gzip data: its two magic octets and the one
/// compression method defined (deflate, 8).
pub fn is_gzip(head: &[u8]) -> bool {
    head.starts_with(&[0x1f, 0x8b, 0x08])
}

/// What decompressing a gzip file held in memory gave ([`inflate`]).
#[derive(Debug)]
pub struct Inflated {
    /// The decompressed octets: all of them, or those before the damage or
    /// the cap.
    pub bytes: Vec<u8>,
    /// Why the octets stop short: the damage met, or the cap reached.
    pub short: Option<String>,
}

/// Decompresses `data`, every member, to at most `cap` octets.
pub fn inflate(data: &[u8], cap: u64) -> Inflated {
    let mut bytes = Vec::new();
    let mut dec = MultiGzDecoder::new(data).take(cap.saturating_add(1));
    // std's `read_to_end` keeps what was read before an error.
    let short = match dec.read_to_end(&mut bytes).map(|_| ()) {
        Ok(()) if bytes.len() as u64 > cap => {
            bytes.truncate(usize::try_from(cap).unwrap_or(usize::MAX));
            Some(format!(
                "gzip-compressed data larger than {cap} octets decompressed"
            ))
        }
        Ok(()) => None,
        Err(e) => Some(damage_note(bytes.len() as u64, &e)),
    };
    Inflated { bytes, short }
}

/// Compresses `bytes` again, as `normalize` writes a gzip file whose
/// messages it changed: one member, at gzip's default level, with the first
/// member's header fields of `original` (file name, comment, extra field,
/// modification time, system), so `gunzip -N` restores the same name.
pub fn deflate_like(original: &[u8], bytes: &[u8]) -> io::Result<Vec<u8>> {
    use flate2::{Compression, GzBuilder};
    use std::io::Write;
    let decoder = flate2::bufread::GzDecoder::new(original);
    let mut builder = GzBuilder::new();
    if let Some(h) = decoder.header() {
        builder = builder
            .mtime(h.mtime())
            .operating_system(h.operating_system());
        if let Some(name) = h.filename() {
            builder = builder.filename(name);
        }
        if let Some(comment) = h.comment() {
            builder = builder.comment(comment);
        }
        if let Some(extra) = h.extra() {
            builder = builder.extra(extra);
        }
    }
    let mut enc = builder.write(Vec::with_capacity(bytes.len() / 3), Compression::default());
    enc.write_all(bytes)?;
    enc.finish()
}

fn damage_note(reached: u64, e: &io::Error) -> String {
    let what = if e.kind() == io::ErrorKind::UnexpectedEof {
        "gzip-compressed data cut short".to_string()
    } else {
        format!("gzip-compressed data damaged ({e})")
    };
    format!("{what} after {reached} decompressed octets")
}

/// Where a streamed input's damage is kept until the end of its run
/// ([`GzStream::damage`]).
pub type DamageSlot = Arc<Mutex<Option<String>>>;

/// A gzip stream read decompressed. Damaged data ends it (it reads as the
/// end of the input) and is kept in its [`DamageSlot`], so the messages
/// before the damage are read and the run can say what was not.
pub struct GzStream {
    inner: MultiGzDecoder<BufReader<Box<dyn Read + Send>>>,
    reached: u64,
    damage: DamageSlot,
    ended: bool,
}

impl GzStream {
    /// Reads `inner` (gzip data, all of it from its first octet)
    /// decompressed.
    pub fn new(inner: Box<dyn Read + Send>) -> Self {
        GzStream {
            inner: MultiGzDecoder::new(BufReader::with_capacity(256 * 1024, inner)),
            reached: 0,
            damage: DamageSlot::default(),
            ended: false,
        }
    }

    /// The slot that holds the damage met, if any, once the stream has been
    /// read to its end.
    pub fn damage(&self) -> DamageSlot {
        Arc::clone(&self.damage)
    }
}

impl Read for GzStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.ended {
            return Ok(0);
        }
        loop {
            match self.inner.read(buf) {
                Ok(n) => {
                    self.reached += n as u64;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.ended = true;
                    if let Ok(mut slot) = self.damage.lock() {
                        *slot = Some(damage_note(self.reached, &e));
                    }
                    return Ok(0);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::{Compression, write::GzEncoder};
    use std::io::Write;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn every_member_is_read() {
        let mut two = gz(b"first\n");
        two.extend(gz(b"second\n"));
        assert!(is_gzip(&two));
        let got = inflate(&two, 1 << 20);
        assert_eq!(got.bytes, b"first\nsecond\n");
        assert!(got.short.is_none());
    }

    #[test]
    fn a_cut_keeps_what_came_before_and_says_so() {
        let text: Vec<u8> = (0..200_000u32)
            .flat_map(|i| format!("line {i}\n").into_bytes())
            .collect();
        let data = gz(&text);
        let got = inflate(&data[..data.len() / 2], 1 << 30);
        let note = got.short.expect("a cut is reported");
        assert!(note.contains("cut short"), "{note}");
        assert!(!got.bytes.is_empty() && got.bytes.len() < text.len());
        assert_eq!(got.bytes[..], text[..got.bytes.len()]);
        // The same through the stream.
        let mut s = GzStream::new(Box::new(io::Cursor::new(data[..data.len() / 2].to_vec())));
        let slot = s.damage();
        let mut out = Vec::new();
        s.read_to_end(&mut out).unwrap();
        assert_eq!(out[..], text[..out.len()]);
        let note = slot
            .lock()
            .unwrap()
            .clone()
            .expect("the stream reports the cut");
        assert!(
            note.contains(&format!("after {} decompressed", out.len())),
            "{note}"
        );
    }

    #[test]
    fn the_cap_stops_a_bomb() {
        let data = gz(&vec![b'a'; 5 << 20]);
        let got = inflate(&data, 1 << 20);
        assert_eq!(got.bytes.len(), 1 << 20);
        assert!(got.short.unwrap().contains("larger than"));
    }

    #[test]
    fn compressed_again_with_the_same_header() {
        let mut e = flate2::GzBuilder::new()
            .filename("2005-January.txt")
            .comment("list archive")
            .mtime(1_104_537_600)
            .write(Vec::new(), Compression::best());
        e.write_all(b"old text\n").unwrap();
        let original = e.finish().unwrap();
        let again = deflate_like(&original, b"new text\n").unwrap();
        assert_eq!(inflate(&again, 1 << 20).bytes, b"new text\n");
        let d = flate2::read::GzDecoder::new(&again[..]);
        let h = d.header().expect("a header");
        assert_eq!(h.filename(), Some(&b"2005-January.txt"[..]));
        assert_eq!(h.comment(), Some(&b"list archive"[..]));
        assert_eq!(h.mtime(), 1_104_537_600);
    }

    #[test]
    fn not_gzip() {
        assert!(!is_gzip(b"From a@b\n"));
        assert!(!is_gzip(&[0x1f, 0x8b]));
    }
}
