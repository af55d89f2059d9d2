//! Codec benchmarks (filled in by the codec work item).
fn main() {}
