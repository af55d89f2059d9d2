//! Which header fields carry which kind of text, so that every consumer
//! (normalize, audit) decodes and rewrites the same fields the same way.

/// How a header field's value may carry non-ASCII text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// Unstructured text: RFC 2047 encoded-words anywhere (RFC 2047 5(1)).
    Unstructured,
    /// An address list: encoded-words in display names and comments only,
    /// addr-specs kept as written (RFC 2047 5(3)).
    AddressList,
    /// Content-Type / Content-Disposition: RFC 2231 parameters (and, in
    /// real mail, RFC 2047 words inside parameter values).
    Parameters,
    /// Any other structured field (Date, Message-ID, Received ...):
    /// encoded-words are not allowed; only raw 8-bit octets are reported.
    Structured,
}

const UNSTRUCTURED: &[&str] = &[
    "subject",
    "comments",
    "content-description",
    "organization",
    "thread-topic",
    "summary",
    "keywords",
    "x-subject",
];

const ADDRESS_LISTS: &[&str] = &[
    "from",
    "to",
    "cc",
    "bcc",
    "reply-to",
    "sender",
    "resent-from",
    "resent-to",
    "resent-cc",
    "resent-bcc",
    "resent-sender",
    "resent-reply-to",
    "return-receipt-to",
    "disposition-notification-to",
    "errors-to",
    "mail-followup-to",
    "mail-reply-to",
    "x-original-to",
    "delivered-to",
];

/// Headers that are structured even though they start with `X-`.
const STRUCTURED_X: &[&str] = &[
    "x-original-to",
    "x-mailing-list",
    "x-beenthere",
    "x-loop",
    "x-spam-status",
];

impl FieldKind {
    /// The kind of a field by its name (ASCII case-insensitive). `X-` fields
    /// other than a few known structured ones are treated as unstructured,
    /// since mailers put encoded-words in them (X-Mailer, X-Subject ...).
    pub fn of(name: &[u8]) -> FieldKind {
        // Every name in the lists is shorter than this; a longer name is
        // structured (or unstructured when it starts `X-`).
        const LONGEST: usize = 32;
        let mut lower = [0u8; LONGEST];
        let Some(lower) = lower.get_mut(..name.len()) else {
            return Self::other(name);
        };
        for (l, b) in lower.iter_mut().zip(name) {
            *l = b.to_ascii_lowercase();
        }
        let is = |list: &[&str]| list.iter().any(|n| n.as_bytes() == &lower[..]);
        if is(ADDRESS_LISTS) {
            FieldKind::AddressList
        } else if is(UNSTRUCTURED) {
            FieldKind::Unstructured
        } else if lower == b"content-type" || lower == b"content-disposition" {
            FieldKind::Parameters
        } else if is(STRUCTURED_X) {
            FieldKind::Structured
        } else {
            Self::other(name)
        }
    }

    /// A name in none of the lists.
    fn other(name: &[u8]) -> FieldKind {
        if name.len() > 2 && name[..2].eq_ignore_ascii_case(b"x-") {
            FieldKind::Unstructured
        } else {
            FieldKind::Structured
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{ADDRESS_LISTS, FieldKind, STRUCTURED_X, UNSTRUCTURED};

    #[test]
    fn classification() {
        assert_eq!(FieldKind::of(b"SUBJECT"), FieldKind::Unstructured);
        assert_eq!(FieldKind::of(b"From"), FieldKind::AddressList);
        assert_eq!(FieldKind::of(b"Resent-Cc"), FieldKind::AddressList);
        assert_eq!(FieldKind::of(b"content-type"), FieldKind::Parameters);
        assert_eq!(FieldKind::of(b"Content-Disposition"), FieldKind::Parameters);
        assert_eq!(FieldKind::of(b"X-Mailer"), FieldKind::Unstructured);
        assert_eq!(FieldKind::of(b"X-Original-To"), FieldKind::AddressList);
        assert_eq!(FieldKind::of(b"X-Loop"), FieldKind::Structured);
        assert_eq!(FieldKind::of(b"Date"), FieldKind::Structured);
        assert_eq!(FieldKind::of(b"Message-ID"), FieldKind::Structured);
        assert_eq!(FieldKind::of(b"X"), FieldKind::Structured);
        assert_eq!(FieldKind::of(b"X-"), FieldKind::Structured);
        assert_eq!(
            FieldKind::of(b"X-A-Very-Long-Header-Name-Past-The-Buffer"),
            FieldKind::Unstructured
        );
        assert_eq!(
            FieldKind::of(b"A-Very-Long-Header-Name-Past-The-Buffer"),
            FieldKind::Structured
        );
        assert_eq!(
            FieldKind::of(b"DISPOSITION-NOTIFICATION-TO"),
            FieldKind::AddressList
        );
        // Every name of every list is found, in any case.
        for (list, kind) in [
            (ADDRESS_LISTS, FieldKind::AddressList),
            (UNSTRUCTURED, FieldKind::Unstructured),
        ] {
            for n in list {
                assert_eq!(
                    FieldKind::of(n.to_ascii_uppercase().as_bytes()),
                    kind,
                    "{n}"
                );
            }
        }
        for n in STRUCTURED_X {
            if !ADDRESS_LISTS.contains(n) {
                assert_eq!(FieldKind::of(n.as_bytes()), FieldKind::Structured, "{n}");
            }
        }
    }
}
