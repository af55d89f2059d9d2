//! `mailcharset filter`: one message on stdin, the normalized message on
//! stdout, for MTA pipes (Postfix pipe, Exim transport filter, procmail).
//!
//! A filter must never lose mail: whatever the input (garbage, empty, huge
//! header lines, deep nesting) it is written back out — normalized, or
//! exactly as it came when anything goes wrong, a panic included — and the
//! exit status is 0. When the message could not be read or written (stdin
//! or stdout closed or failing) it exits 75 (EX_TEMPFAIL), so the MTA
//! defers and retries; never 0 then, and never a panic (a broken stderr is
//! ignored). One line on stderr says what happened.

use super::{CliResult, FilterArgs, HeadersArg, Unicode11Arg, exit};
use mailcharset::charset::Unicode11Policy;
use mailcharset::normalize::{self, Action, HeaderMode, Options};
use std::borrow::Cow;
use std::io::{self, Write};
use std::os::fd::AsFd;

pub fn options(unicode11: Unicode11Arg, headers: HeadersArg) -> Options {
    Options {
        unicode11: match unicode11 {
            Unicode11Arg::Auto => Unicode11Policy::Auto,
            Unicode11Arg::Remap => Unicode11Policy::Remap,
            Unicode11Arg::Off => Unicode11Policy::Off,
        },
        headers: match headers {
            HeadersArg::Encoded => HeaderMode::Encoded,
            HeadersArg::Utf8 => HeaderMode::Utf8,
        },
        ..Options::default()
    }
}

/// Normalizes `raw`, never failing: the bytes to write and the stderr line.
///
/// Input that does not start like a message (its first line is not a
/// header field nor an envelope `From ` line: empty input, binary junk, a
/// text file) goes out byte for byte, as `normalize` keeps it
/// ([`looks_like_message`](mailcharset::mailbox::looks_like_message), the one rule
/// both use). Read as a message it would be a body without a header, and
/// the header/body separator normalization writes was put in front of it:
/// an empty line, CRLF when the input had no line end at all.
pub fn filter_bytes<'a>(raw: &'a [u8], opts: &Options) -> (Cow<'a, [u8]>, String) {
    if !mailcharset::mailbox::looks_like_message(raw) {
        return (
            Cow::Borrowed(raw),
            "unchanged: does not start like a message (no header field on its first line)"
                .to_string(),
        );
    }
    // Last line of defence: a panic anywhere below is caught and the input
    // goes out unchanged. The default hook's message is silenced meanwhile.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        normalize::normalize(raw, opts)
    }));
    std::panic::set_hook(hook);
    match result {
        Ok(Ok(n)) => {
            let converted = n.report.count(Action::Converted) + n.report.count(Action::Replaced);
            let kept = n.report.count(Action::Kept);
            let line = if n.report.changed {
                let s = if converted == 1 { "" } else { "s" };
                let kept = if kept > 0 {
                    format!(", {kept} kept as they were")
                } else {
                    String::new()
                };
                format!("normalized ({converted} part{s} converted{kept})")
            } else if kept > 0 && n.report.dkim_signed {
                format!("unchanged, DKIM-signed ({kept} kept as they were)")
            } else if kept > 0 {
                format!("unchanged ({kept} kept as they were)")
            } else {
                "unchanged".to_string()
            };
            (n.bytes, line)
        }
        Ok(Err(e)) => (Cow::Borrowed(raw), format!("kept as it was: {e}")),
        Err(_) => (
            Cow::Borrowed(raw),
            "kept as it was: internal error (panic caught)".to_string(),
        ),
    }
}

pub fn run(args: &FilterArgs) -> CliResult {
    // Standard input and output through descriptors of our own: std reads
    // a closed stdin as empty and discards writes to a closed stdout (EBADF)
    // as if they had succeeded, which would hand an MTA an empty message or
    // no message with exit 0. A descriptor that cannot be duplicated is
    // closed: exit 75, the MTA tries again later.
    let (Ok(stdin), Ok(stdout)) = (
        io::stdin().as_fd().try_clone_to_owned(),
        io::stdout().as_fd().try_clone_to_owned(),
    ) else {
        note("standard input or output is closed");
        return Ok(exit::TEMPFAIL);
    };
    for (fd, what) in [(0, "input"), (1, "output")] {
        if closed_at_start(fd) {
            note(&format!("standard {what} was closed"));
            return Ok(exit::TEMPFAIL);
        }
    }
    let mut input = std::fs::File::from(stdin);
    let (raw, more) = match super::read_capped(&mut input, args.max_message_size) {
        Ok(r) => r,
        Err(e) => {
            note(&format!("cannot read standard input: {e}"));
            return Ok(exit::TEMPFAIL);
        }
    };
    if more {
        // Too large to hold: out as it came, streamed.
        let mut out = std::fs::File::from(stdout);
        let copied = out
            .write_all(&raw)
            .and_then(|()| io::copy(&mut input, &mut out))
            .and_then(|n| out.flush().map(|()| n));
        return match copied {
            Ok(n) => {
                note(&format!(
                    "passed through unchanged: {} octets, over --max-message-size ({})",
                    raw.len() as u64 + n,
                    args.max_message_size
                ));
                Ok(exit::OK)
            }
            Err(e) => {
                note(&format!("cannot pass the message through: {e}"));
                Ok(exit::TEMPFAIL)
            }
        };
    }
    let mut opts = options(args.unicode11, args.headers);
    opts.repair_cesu8 = args.repair_cesu8;
    opts.repair_mixed = args.repair_mixed;
    opts.keep_dkim_signed = args.keep_dkim_signed;
    opts.convert_attachments = args.convert_attachments;
    let (bytes, line) = filter_bytes(&raw, &opts);
    let mut out = std::fs::File::from(stdout);
    if let Err(e) = out.write_all(&bytes).and_then(|()| out.flush()) {
        note(&format!("cannot write standard output: {e}"));
        return Ok(exit::TEMPFAIL);
    }
    note(&line);
    Ok(exit::OK)
}

/// Whether standard descriptor `fd` was closed when the process started.
/// Rust's runtime opens `/dev/null` (read-write) on a closed standard
/// descriptor, so reads see an empty message and writes vanish; a shell
/// redirection or an MTA's pipe never gives a read-write `/dev/null`.
#[cfg(target_os = "linux")]
fn closed_at_start(fd: u8) -> bool {
    let null = std::fs::read_link(format!("/proc/self/fd/{fd}"))
        .is_ok_and(|p| p == std::path::Path::new("/dev/null"));
    null && std::fs::read_to_string(format!("/proc/self/fdinfo/{fd}")).is_ok_and(|info| {
        info.lines()
            .find_map(|l| l.strip_prefix("flags:"))
            .and_then(|f| u32::from_str_radix(f.trim(), 8).ok())
            .is_some_and(|flags| flags & 0o3 == 0o2)
    })
}

#[cfg(not(target_os = "linux"))]
fn closed_at_start(_fd: u8) -> bool {
    false
}

/// One line on stderr, never a panic: a closed or broken stderr must not
/// turn a delivered message into an exit status the MTA would act on.
fn note(line: &str) {
    let _ = writeln!(io::stderr().lock(), "mailcharset filter: {line}");
}
