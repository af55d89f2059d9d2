//! `mailcharset encode`: UTF-8 text (or `U+XXXX` code points) to octets.
//!
//! UTF-8 and its legacy (RFC 2279) and extended (UTF-E-8) forms are encoded
//! here; every other `--charset` goes to [`super::charset_codec::encode`].

use super::decode::{is_plain_utf8, strict_error};
use super::{CliError, CliResult, CodecArgs, ModeArg, exit, read_input, write_stdout};
use mailcharset::codec::legacy::{self, UcsOptions};
use mailcharset::codec::{extended, utf8};

/// Largest value each mode can encode.
fn mode_max(mode: ModeArg) -> u64 {
    match mode {
        ModeArg::Strict | ModeArg::Lossy => 0x10_FFFF,
        ModeArg::Legacy => u64::from(legacy::MAX),
        ModeArg::Extended => extended::MAX,
    }
}

/// Reads whitespace-separated `U+XXXX` tokens (`u+` accepted too).
fn parse_codepoints(input: &str, text: &str, mode: ModeArg) -> Result<Vec<u64>, CliError> {
    let mut values = Vec::new();
    let mut rest = text;
    let mut offset = 0;
    loop {
        let trimmed = rest.trim_start();
        offset += rest.len() - trimmed.len();
        if trimmed.is_empty() {
            return Ok(values);
        }
        let token_len = trimmed.find(char::is_whitespace).unwrap_or(trimmed.len());
        let token = &trimmed[..token_len];
        let hex = token
            .strip_prefix("U+")
            .or_else(|| token.strip_prefix("u+"))
            .filter(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()));
        let value = hex.and_then(|h| u64::from_str_radix(h, 16).ok());
        let Some(value) = value else {
            return Err(CliError::new(
                exit::DATA,
                format!("{input}: offset {offset}: bad code point token {token:?}"),
            ));
        };
        let scalar_only = matches!(mode, ModeArg::Strict | ModeArg::Lossy);
        if value > mode_max(mode) || (scalar_only && (0xD800..=0xDFFF).contains(&value)) {
            return Err(CliError::new(
                exit::DATA,
                format!(
                    "{input}: offset {offset}: {token} is out of range for --mode {}",
                    mode_name(mode)
                ),
            ));
        }
        values.push(value);
        offset += token_len;
        rest = &trimmed[token_len..];
    }
}

fn mode_name(mode: ModeArg) -> &'static str {
    match mode {
        ModeArg::Strict => "strict",
        ModeArg::Lossy => "lossy",
        ModeArg::Legacy => "legacy",
        ModeArg::Extended => "extended",
    }
}

/// Encodes values (already range-checked for `mode`).
fn encode_values(values: &[u64], mode: ModeArg) -> Result<Vec<u8>, CliError> {
    let encoded = match mode {
        ModeArg::Extended => extended::encode(values),
        _ => {
            let narrow: Vec<u32> = values
                .iter()
                .map(|&v| u32::try_from(v).unwrap_or(u32::MAX))
                .collect();
            legacy::encode(&narrow)
        }
    };
    encoded.map_err(|e| CliError::new(exit::SOFTWARE, format!("encode: {e}")))
}

pub fn run(args: &CodecArgs) -> CliResult {
    let (input, bytes) = read_input(args.file.as_deref())?;
    let utf8 = is_plain_utf8(&args.charset);
    // The input is text: strict UTF-8 unless this is UTF-8 in a lenient mode.
    let text = match (utf8, args.mode) {
        (true, ModeArg::Lossy) => utf8::decode_lossy(&bytes),
        (true, ModeArg::Legacy | ModeArg::Extended) if !args.codepoints => {
            // Re-encode what the lenient decoder reads: shortest forms out.
            let opts = UcsOptions::default();
            let values = if args.mode == ModeArg::Legacy {
                legacy::decode_lossy(&bytes, &opts)
                    .0
                    .into_iter()
                    .map(u64::from)
                    .collect()
            } else {
                extended::decode_lossy(&bytes, &opts).0
            };
            write_stdout(&encode_values(&values, args.mode)?)?;
            return Ok(exit::OK);
        }
        _ => utf8::validate(&bytes)
            .map_err(|e| strict_error(&input, e.valid_up_to(), e.kind()))?
            .into(),
    };
    if !utf8 {
        return super::charset_codec::encode(args, &input, &text);
    }
    if args.codepoints {
        let values = parse_codepoints(&input, &text, args.mode)?;
        write_stdout(&encode_values(&values, args.mode)?)?;
    } else {
        write_stdout(text.as_bytes())?;
    }
    Ok(exit::OK)
}
