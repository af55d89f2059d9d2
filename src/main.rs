//! The `mailcharset` command line. See doc/architecture.md, "Command line".

mod cli;

/// With the `mimalloc` feature: faster, larger (Cargo.toml, BENCHMARKS.md).
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    cli::main()
}
