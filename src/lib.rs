#![forbid(unsafe_code)]
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
