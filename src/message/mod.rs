//! The part tree (multipart, message/rfc822), limits, transfer codings.

pub mod transfer;
