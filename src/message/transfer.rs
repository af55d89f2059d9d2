//! Transfer codings: base64, quoted-printable (RFC 2045). TODO.
