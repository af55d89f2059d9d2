//! `mailcharset encode`.

use super::{CliError, CliResult, CodecArgs, exit};

pub fn run(_args: &CodecArgs) -> CliResult {
    Err(CliError::new(exit::SOFTWARE, "encode: not implemented yet"))
}
