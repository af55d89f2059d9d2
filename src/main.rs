//! The `mailcharset` command line. See doc/architecture.md, "Command line".

// As in the library: `unsafe` only where a module allows it and documents
// every block (the signal threads of `cli::milter::stop` and
// `cli::interrupt`: sigwait, which std does not offer).
#![deny(unsafe_code)]
#![warn(clippy::undocumented_unsafe_blocks)]

mod cli;

/// With the `mimalloc` feature: faster, larger (Cargo.toml, BENCHMARKS.md).
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    cli::main()
}
