//! A mail gateway's content filter built on the library call: one message
//! on stdin, the normalized message on stdout, a summary on stderr — and,
//! whatever happens, the message is never lost (on any error it goes out as
//! it came in). This is what `mailcharset filter` does, in a few lines, for
//! embedding in your own gateway.
//!
//! ```text
//! cargo run --example gateway_filter < fixtures/messages/latin1-qp.eml
//! cargo run --example gateway_filter -- --utf8 < in.eml > out.eml   # SMTPUTF8 relay
//! ```

use mailcharset::normalize::{self, Action, HeaderMode, OnError, Options};
use std::io::{Read, Write};
use std::process::ExitCode;

/// sysexits EX_TEMPFAIL: the MTA keeps the message and retries.
const TEMPFAIL: u8 = 75;

fn main() -> ExitCode {
    let utf8 = std::env::args().any(|a| a == "--utf8");
    let mut raw = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut raw) {
        eprintln!("gateway_filter: reading stdin: {e}");
        return ExitCode::from(TEMPFAIL);
    }
    let opts = Options {
        headers: if utf8 {
            HeaderMode::Utf8
        } else {
            HeaderMode::Encoded
        },
        // A gateway must not destroy what it cannot read: keep such parts.
        on_error: OnError::Keep,
        ..Options::default()
    };
    let (bytes, summary) = match normalize::normalize(&raw, &opts) {
        Ok(n) => {
            let converted = n.report.count(Action::Converted) + n.report.count(Action::Replaced);
            let kept = n.report.count(Action::Kept);
            let summary = format!(
                "{} ({converted} converted, {kept} kept as they were)",
                if n.report.changed {
                    "normalized"
                } else {
                    "unchanged"
                }
            );
            (n.bytes, summary)
        }
        // Only OnError::Fail returns an error; kept here for completeness.
        Err(e) => (
            std::borrow::Cow::Borrowed(&raw[..]),
            format!("kept as it was: {e}"),
        ),
    };
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(&bytes).and_then(|()| out.flush()) {
        eprintln!("gateway_filter: writing stdout: {e}");
        return ExitCode::from(TEMPFAIL);
    }
    eprintln!("gateway_filter: {summary}");
    ExitCode::SUCCESS
}
