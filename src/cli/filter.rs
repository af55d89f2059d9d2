//! `mailcharset filter`.

use super::{CliError, CliResult, FilterArgs, exit};

pub fn run(_args: &FilterArgs) -> CliResult {
    Err(CliError::new(exit::SOFTWARE, "filter: not implemented yet"))
}
