//! `mailcharset normalize`.

use super::{CliError, CliResult, NormalizeArgs, exit};

pub fn run(_args: &NormalizeArgs) -> CliResult {
    Err(CliError::new(
        exit::SOFTWARE,
        "normalize: not implemented yet",
    ))
}
