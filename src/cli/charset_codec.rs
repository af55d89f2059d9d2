//! `decode`/`encode` for every charset other than plain UTF-8 (owned by the
//! charset work item; `decode.rs`/`encode.rs` call in here for those labels).
//!
//! Strict mode stops at the first undecodable or unencodable unit (exit 65,
//! `mailcharset: <input>: offset N: <what>`); lossy mode replaces (U+FFFD when
//! decoding; `?`, or U+FFFD in UNICODE-1-1-UTF-8, when encoding) and prints the
//! count on stderr. `legacy` and `extended` are UTF-8 modes: with another
//! charset they are a usage error.

use super::{CliError, CliResult, CodecArgs, ModeArg, exit, write_stdout};
use mailcharset::charset::{self, Charset, DecodeOptions, EncodeError, Support};

fn charset_of(args: &CodecArgs) -> Result<&'static Charset, CliError> {
    let cs = Charset::for_label(args.charset.as_bytes()).ok_or_else(|| {
        CliError::new(
            exit::USAGE,
            format!("unknown charset label {:?}", args.charset),
        )
    })?;
    match cs.support() {
        Support::Decoder(_) => {}
        Support::Detect => {
            return Err(CliError::new(
                exit::USAGE,
                format!("{:?} names no charset", args.charset),
            ));
        }
        Support::Unsupported(reason) => {
            return Err(CliError::new(
                exit::USAGE,
                format!("charset {} is not supported: {reason}", cs.name()),
            ));
        }
    }
    match args.mode {
        ModeArg::Strict | ModeArg::Lossy => Ok(cs),
        ModeArg::Legacy | ModeArg::Extended => Err(CliError::new(
            exit::USAGE,
            format!(
                "--mode legacy/extended applies to UTF-8 only, not {}",
                cs.name()
            ),
        )),
    }
}

/// `U+XXXX` per character, separated by spaces.
fn codepoints(text: &str) -> String {
    let mut s = String::with_capacity(text.len() * 7);
    for (i, c) in text.chars().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(&format!("U+{:04X}", u32::from(c)));
    }
    s.push('\n');
    s
}

/// Reads `U+XXXX` tokens (whitespace-separated) into text.
fn parse_codepoints(input: &str, text: &str) -> Result<String, CliError> {
    let mut out = String::new();
    let mut offset = 0;
    for tok in text.split_ascii_whitespace() {
        let at = text[offset..].find(tok).map_or(offset, |p| offset + p);
        offset = at + tok.len();
        let hex = tok
            .strip_prefix("U+")
            .or_else(|| tok.strip_prefix("u+"))
            .unwrap_or(tok);
        let c = u32::from_str_radix(hex, 16)
            .ok()
            .and_then(char::from_u32)
            .ok_or_else(|| {
                CliError::new(
                    exit::DATA,
                    format!("{input}: offset {at}: {tok:?} is not a Unicode scalar value"),
                )
            })?;
        out.push(c);
    }
    Ok(out)
}

/// Decodes `bytes` (read from `input`) under `args.charset`, which is not UTF-8.
pub fn decode(args: &CodecArgs, input: &str, bytes: &[u8]) -> CliResult {
    let cs = charset_of(args)?;
    // Strict US-ASCII is exactly that: the mail policy for 8-bit octets
    // under an ASCII label (UTF-8 if valid, else a guess) does not apply.
    if args.mode == ModeArg::Strict
        && cs.is_us_ascii()
        && let Some(at) = bytes.iter().position(|b| !b.is_ascii())
    {
        return Err(CliError::new(
            exit::DATA,
            format!("{input}: offset {at}: invalid-byte in {}", cs.name()),
        ));
    }
    let opts = DecodeOptions {
        detect: false,
        ..DecodeOptions::default()
    };
    let d = charset::decode_as(bytes, cs, &opts);
    if args.mode == ModeArg::Strict
        && let Some(f) = d.first_error()
    {
        return Err(CliError::new(
            exit::DATA,
            format!("{input}: offset {}: {} in {}", f.offset, f.kind, cs.name()),
        ));
    }
    if args.codepoints {
        write_stdout(codepoints(&d.text).as_bytes())?;
    } else {
        write_stdout(d.text.as_bytes())?;
    }
    if d.replacements > 0 {
        eprintln!(
            "mailcharset: {input}: {} replacement(s) (U+FFFD) decoding {}",
            d.replacements,
            cs.name()
        );
    }
    Ok(exit::OK)
}

/// Encodes `text` (read from `input`) into `args.charset`, which is not UTF-8.
pub fn encode(args: &CodecArgs, input: &str, text: &str) -> CliResult {
    let cs = charset_of(args)?;
    let parsed;
    let text = if args.codepoints {
        parsed = parse_codepoints(input, text)?;
        parsed.as_str()
    } else {
        text
    };
    let strict = args.mode == ModeArg::Strict;
    match charset::encode(text, cs, strict) {
        Ok(e) => {
            write_stdout(&e.bytes)?;
            if e.replacements > 0 {
                eprintln!(
                    "mailcharset: {input}: {} character(s) replaced encoding to {}",
                    e.replacements,
                    cs.name()
                );
            }
            Ok(exit::OK)
        }
        Err(EncodeError::Unmappable { offset, ch, .. }) => Err(CliError::new(
            exit::DATA,
            format!(
                "{input}: offset {offset}: U+{:04X} cannot be encoded in {}",
                u32::from(ch),
                cs.name()
            ),
        )),
        Err(e) => Err(CliError::new(exit::USAGE, format!("{input}: {e}"))),
    }
}
