//! `decode`/`encode` for every charset other than plain UTF-8 (owned by the
//! charset work item; `decode.rs`/`encode.rs` call in here for those labels).

use super::{CliError, CliResult, CodecArgs, exit};

/// Decodes `bytes` (read from `input`) under `args.charset`, which is not UTF-8.
pub fn decode(args: &CodecArgs, input: &str, bytes: &[u8]) -> CliResult {
    let _ = (bytes, input);
    Err(CliError::new(
        exit::USAGE,
        format!("decode: charset {:?} not supported yet", args.charset),
    ))
}

/// Encodes `text` (read from `input`) into `args.charset`, which is not UTF-8.
pub fn encode(args: &CodecArgs, input: &str, text: &str) -> CliResult {
    let _ = (text, input);
    Err(CliError::new(
        exit::USAGE,
        format!("encode: charset {:?} not supported yet", args.charset),
    ))
}
