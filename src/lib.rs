// `unsafe` is denied everywhere but in `codec::simd` (AVX2 error finding
// for the lossy UTF-8 decoder, measured in BENCHMARKS.md, and a cache
// prefetch for the archive pipeline) and `mailbox::sys` (Linux's renameat2,
// to swap a message file in place atomically), which allow it and document
// every block.
#![deny(unsafe_code)]
#![warn(clippy::undocumented_unsafe_blocks)]
#![warn(missing_docs)]
#![doc = include_str!("../README.md")]

pub mod audit;
pub mod charset;
pub mod codec;
pub mod finding;
pub mod mailbox;
pub mod message;
pub mod mime;
pub mod normalize;

pub use finding::{Finding, FindingKind, LabelStatus, Verdict};
