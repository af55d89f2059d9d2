//! Charset label auditing: one [`Record`] per labelled piece of text, their
//! JSON/JSONL/CSV/table forms, and corpus summaries.

mod analyze;
mod format;
mod record;
mod summary;

#[cfg(feature = "mail-parser")]
pub use analyze::from_mail_parser;
pub use analyze::{AuditOptions, MessageContext, audit_message, audit_parsed};
pub use format::{CSV_HEADER, Format, Formatted, RecordWriter, escape_controls, write_records};
pub use record::{DetectedRecord, Record, Source};
pub use summary::{LabelRow, Summary};

use crate::finding::Verdict;

/// The `--fail-on` threshold: a record at or above it fails the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailOn {
    /// `suspicious`, `mislabeled`, `invalid` and `unknown-label` fail.
    Suspicious,
    /// `mislabeled`, `invalid` and `unknown-label` fail.
    Mislabeled,
    /// `invalid` and `unknown-label` (text we could not vouch for) fail.
    Invalid,
}

impl FailOn {
    /// Whether a record with `verdict` reaches this level.
    pub fn is_reached_by(self, verdict: Verdict) -> bool {
        let threshold = match self {
            FailOn::Suspicious => Verdict::Suspicious,
            FailOn::Mislabeled => Verdict::Mislabeled,
            FailOn::Invalid => Verdict::Invalid,
        };
        verdict >= threshold
    }
}
