//! `mailcharset filter`: one message on stdin, the normalized message on
//! stdout, for MTA pipes (Postfix pipe, Exim transport filter, procmail).
//!
//! A filter must never lose mail: whatever the input (garbage, empty, huge
//! header lines, deep nesting) it is written back out — normalized, or
//! exactly as it came when anything goes wrong, a panic included — and the
//! exit status is 0. Only an I/O failure (stdin unreadable, stdout closed)
//! exits 75 (EX_TEMPFAIL), so the MTA retries later. One line on stderr says
//! what happened.

use super::{CliResult, FilterArgs, HeadersArg, Unicode11Arg, exit};
use mailcharset::charset::Unicode11Policy;
use mailcharset::normalize::{self, Action, HeaderMode, Options};
use std::borrow::Cow;
use std::io::{self, Read, Write};

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
pub fn filter_bytes<'a>(raw: &'a [u8], opts: &Options) -> (Cow<'a, [u8]>, String) {
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
    let mut raw = Vec::new();
    if let Err(e) = io::stdin().lock().read_to_end(&mut raw) {
        eprintln!("mailcharset filter: cannot read standard input: {e}");
        return Ok(exit::TEMPFAIL);
    }
    let mut opts = options(args.unicode11, args.headers);
    opts.repair_cesu8 = args.repair_cesu8;
    opts.repair_mixed = args.repair_mixed;
    let (bytes, line) = filter_bytes(&raw, &opts);
    let mut out = io::stdout().lock();
    if let Err(e) = out.write_all(&bytes).and_then(|()| out.flush()) {
        eprintln!("mailcharset filter: cannot write standard output: {e}");
        return Ok(exit::TEMPFAIL);
    }
    eprintln!("mailcharset filter: {line}");
    Ok(exit::OK)
}
