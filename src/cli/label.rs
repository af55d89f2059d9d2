//! `mailcharset label`.

use super::{CliError, CliResult, LabelArgs, exit};

pub fn run(_args: &LabelArgs) -> CliResult {
    Err(CliError::new(exit::SOFTWARE, "label: not implemented yet"))
}
