//! Encoding text into a charset (for `mailcharset encode` and round-trip
//! checks): strict or lossy, with look-alike characters of the WHATWG
//! multi-octet encoders treated as unmappable.

use super::{Charset, Kind, johab, sevenbit};
use crate::codec::{hangul, utf7, utf16_32};
use encoding_rs::{EncoderResult, Encoding};
use std::borrow::Cow;
use std::fmt;

/// Why text could not be encoded.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EncodeError {
    /// The charset has no encoder (with the reason).
    Unsupported {
        /// The charset's name.
        charset: &'static str,
        /// Why it has no encoder.
        reason: &'static str,
    },
    /// `ch` at byte `offset` of the text has no representation (strict mode).
    Unmappable {
        /// The charset's name.
        charset: &'static str,
        /// Octet offset of the character in the text.
        offset: usize,
        /// The character.
        ch: char,
    },
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::Unsupported { charset, reason } => {
                write!(f, "cannot encode to {charset}: {reason}")
            }
            EncodeError::Unmappable {
                charset,
                offset,
                ch,
            } => write!(
                f,
                "offset {offset}: U+{:04X} cannot be encoded in {charset}",
                u32::from(*ch)
            ),
        }
    }
}

impl std::error::Error for EncodeError {}

/// Encoded text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Encoded<'a> {
    /// The encoded octets (borrowed when they are the text's own).
    pub bytes: Cow<'a, [u8]>,
    /// Characters that had no representation and were replaced (lossy mode):
    /// by `?` in legacy charsets, by U+FFFD in UNICODE-1-1-UTF-8.
    pub replacements: usize,
    /// Byte offset in the text of the first replaced character.
    pub first_replacement: Option<usize>,
}

/// Encodes `text` into `charset`. Strict: the first unmappable character is
/// an error; lossy: it is replaced and counted. Borrows when the bytes are
/// the text's own (UTF-8, or ASCII in an ASCII-compatible charset).
pub fn encode<'a>(
    text: &'a str,
    charset: &'static Charset,
    strict: bool,
) -> Result<Encoded<'a>, EncodeError> {
    let name = charset.name;
    let mut tally = Tally {
        charset: name,
        strict,
        replacements: 0,
        first: None,
    };
    let bytes: Cow<'a, [u8]> = match &charset.kind {
        Kind::Utf8 => Cow::Borrowed(text.as_bytes()),
        Kind::Unicode11Utf8 => {
            let t = hangul::remap_new(text, |u| {
                tally.unmappable(u.offset, u.ch).map(|()| '\u{FFFD}')
            })?;
            match t {
                Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
                Cow::Owned(s) => Cow::Owned(s.into_bytes()),
            }
        }
        Kind::Utf7 => utf7::encode(text),
        Kind::Utf16 => utf16_32::encode_utf16(text, true, true),
        Kind::Legacy(e) if *e == encoding_rs::UTF_16BE => utf16_32::encode_utf16(text, true, false),
        Kind::Legacy(e) if *e == encoding_rs::UTF_16LE => {
            utf16_32::encode_utf16(text, false, false)
        }
        Kind::Utf32 => utf16_32::encode_utf32(text, true, true),
        Kind::Utf32Be => utf16_32::encode_utf32(text, true, false),
        Kind::Utf32Le => utf16_32::encode_utf32(text, false, false),
        Kind::Ascii => {
            if text.is_ascii() {
                Cow::Borrowed(text.as_bytes())
            } else {
                let mut out = Vec::with_capacity(text.len());
                for (at, c) in text.char_indices() {
                    if c.is_ascii() {
                        out.push(c as u8);
                    } else {
                        tally.unmappable(at, c)?;
                        out.push(b'?');
                    }
                }
                Cow::Owned(out)
            }
        }
        Kind::Superset(e) | Kind::Legacy(e) => {
            return encode_encoding_rs(text, e, name, strict);
        }
        Kind::Iso2022Kr | Kind::Hz => {
            let form = if matches!(charset.kind, Kind::Hz) {
                sevenbit::Form::Hz
            } else {
                sevenbit::Form::Iso2022Kr
            };
            let bytes = sevenbit::encode(form, text, |o, c| tally.unmappable(o, c))?;
            Cow::Owned(bytes)
        }
        Kind::Iso2022Jp2 => {
            let bytes = sevenbit::encode_jp2(text, |o, c| tally.unmappable(o, c))?;
            Cow::Owned(bytes)
        }
        Kind::Johab => {
            if text.is_ascii() {
                Cow::Borrowed(text.as_bytes())
            } else {
                Cow::Owned(johab::encode(text, |o, c| tally.unmappable(o, c))?)
            }
        }
        Kind::SingleByte(table) => {
            if text.is_ascii() {
                Cow::Borrowed(text.as_bytes())
            } else {
                let mut out = Vec::with_capacity(text.len());
                for (at, c) in text.char_indices() {
                    match table.encode_char(c) {
                        Some(b) => out.push(b),
                        None => {
                            tally.unmappable(at, c)?;
                            out.push(b'?');
                        }
                    }
                }
                Cow::Owned(out)
            }
        }
        Kind::Detect => {
            return Err(EncodeError::Unsupported {
                charset: name,
                reason: "the label names no charset",
            });
        }
        Kind::Unsupported(reason) => {
            return Err(EncodeError::Unsupported {
                charset: name,
                reason,
            });
        }
    };
    Ok(Encoded {
        bytes,
        replacements: tally.replacements,
        first_replacement: tally.first,
    })
}

/// What an encoder does with a character its charset cannot represent:
/// in strict mode the first is an error, in lossy mode each is counted (the
/// caller writes the replacement).
struct Tally {
    charset: &'static str,
    strict: bool,
    replacements: usize,
    first: Option<usize>,
}

impl Tally {
    fn unmappable(&mut self, offset: usize, ch: char) -> Result<(), EncodeError> {
        if self.strict {
            return Err(EncodeError::Unmappable {
                charset: self.charset,
                offset,
                ch,
            });
        }
        self.replacements += 1;
        self.first.get_or_insert(offset);
        Ok(())
    }
}

fn encode_encoding_rs<'a>(
    text: &'a str,
    enc: &'static Encoding,
    name: &'static str,
    strict: bool,
) -> Result<Encoded<'a>, EncodeError> {
    let (encoded, replaced) = encode_encoding_rs_raw(text, enc, name, strict)?;
    if enc.is_single_byte() || matches!(encoded.bytes, Cow::Borrowed(_)) {
        return Ok(encoded);
    }
    // WHATWG's multi-byte encoders write some characters as look-alikes
    // (U+00A5 → 0x5C in Shift_JIS and EUC-JP, U+203E → 0x7E, half-width
    // katakana → full-width in ISO-2022-JP). Those do not survive a round
    // trip: they are unmappable here.
    let expected: String = text
        .char_indices()
        .map(|(i, c)| {
            if replaced.binary_search(&i).is_ok() {
                '?'
            } else {
                c
            }
        })
        .collect();
    let decoded = enc.decode_without_bom_handling(&encoded.bytes).0;
    if decoded == expected {
        return Ok(encoded);
    }
    let mut lookalikes = Vec::new();
    // Offsets into `text` (`expected` has the same characters, but `?` for
    // the replaced ones, so its byte offsets differ).
    for (((i, _), want), got) in text
        .char_indices()
        .zip(expected.chars())
        .zip(decoded.chars())
    {
        if want != got {
            lookalikes.push(i);
        }
    }
    let first = lookalikes.first().copied().unwrap_or(0);
    if strict {
        let ch = text[first..].chars().next().unwrap_or('\u{FFFD}');
        return Err(EncodeError::Unmappable {
            charset: name,
            offset: first,
            ch,
        });
    }
    let cleaned: String = text
        .char_indices()
        .map(|(i, c)| {
            if lookalikes.binary_search(&i).is_ok() {
                '?'
            } else {
                c
            }
        })
        .collect();
    let (again, _) = encode_encoding_rs_raw(&cleaned, enc, name, false)?;
    Ok(Encoded {
        bytes: Cow::Owned(again.bytes.into_owned()),
        replacements: encoded.replacements + lookalikes.len(),
        first_replacement: encoded
            .first_replacement
            .into_iter()
            .chain(lookalikes.first().copied())
            .min(),
    })
}

/// encoding_rs's encoder with `?` for unmappable characters; also returns
/// the offsets replaced.
fn encode_encoding_rs_raw<'a>(
    text: &'a str,
    enc: &'static Encoding,
    name: &'static str,
    strict: bool,
) -> Result<(Encoded<'a>, Vec<usize>), EncodeError> {
    let ascii_ok = enc.is_ascii_compatible() || enc == encoding_rs::ISO_2022_JP;
    if ascii_ok && text.is_ascii() {
        return Ok((
            Encoded {
                bytes: Cow::Borrowed(text.as_bytes()),
                replacements: 0,
                first_replacement: None,
            },
            Vec::new(),
        ));
    }
    let mut encoder = enc.new_encoder();
    let mut out = Vec::with_capacity(
        encoder
            .max_buffer_length_from_utf8_without_replacement(text.len())
            .unwrap_or(text.len())
            + 16,
    );
    let (mut replacements, mut first_replacement) = (0, None);
    let mut replaced = Vec::new();
    let mut pos = 0;
    loop {
        let (res, read) =
            encoder.encode_from_utf8_to_vec_without_replacement(&text[pos..], &mut out, true);
        pos += read;
        match res {
            EncoderResult::InputEmpty => break,
            EncoderResult::OutputFull => {
                let more = encoder
                    .max_buffer_length_from_utf8_without_replacement(text.len() - pos)
                    .unwrap_or(1024);
                out.reserve(more.max(16));
            }
            EncoderResult::Unmappable(ch) => {
                let at = pos - ch.len_utf8();
                if strict {
                    return Err(EncodeError::Unmappable {
                        charset: name,
                        offset: at,
                        ch,
                    });
                }
                replacements += 1;
                first_replacement.get_or_insert(at);
                replaced.push(at);
                out.reserve(16);
                // Through the encoder, so that stateful encodings (ISO-2022-JP)
                // switch back to ASCII first.
                let _ = encoder.encode_from_utf8_to_vec_without_replacement("?", &mut out, false);
            }
        }
    }
    Ok((
        Encoded {
            bytes: Cow::Owned(out),
            replacements,
            first_replacement,
        },
        replaced,
    ))
}
