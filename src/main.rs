//! The `mailcharset` command line. See DESIGN.md "Command line".

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
