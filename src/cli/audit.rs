//! `mailcharset audit`.

use super::{AuditArgs, CliError, CliResult, exit};

pub fn run(_args: &AuditArgs) -> CliResult {
    Err(CliError::new(exit::SOFTWARE, "audit: not implemented yet"))
}
