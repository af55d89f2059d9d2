//! `mailcharset decode`.

use super::{CliError, CliResult, CodecArgs, exit};

pub fn run(_args: &CodecArgs) -> CliResult {
    Err(CliError::new(exit::SOFTWARE, "decode: not implemented yet"))
}
