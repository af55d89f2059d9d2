//! The `mailcharset` command line. See doc/architecture.md, "Command line".

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
