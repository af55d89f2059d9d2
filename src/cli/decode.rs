//! `mailcharset decode`: bytes in a charset to UTF-8 (or code points).
//!
//! UTF-8 is decoded here in the four modes of doc/architecture.md ("Command line"); every other
//! `--charset` goes to [`super::charset_codec::decode`].

use super::{CliError, CliResult, CodecArgs, ModeArg, exit, read_input, write_stdout};
use mailcharset::codec::legacy::{self, UcsOptions};
use mailcharset::codec::utf8::{self, DecodeReport};
use mailcharset::codec::{ErrorKind, extended};

/// Is `label` plain UTF-8 (decoded by this module rather than the charset
/// layer)? ASCII-case-insensitive "utf-8" or "utf8", surrounding whitespace
/// ignored.
pub(super) fn is_plain_utf8(label: &str) -> bool {
    let label = label.trim();
    label.eq_ignore_ascii_case("utf-8") || label.eq_ignore_ascii_case("utf8")
}

/// `U+XXXX` (uppercase hex, at least four digits) separated by single
/// spaces, with a newline at the end.
pub(super) fn format_codepoints(values: impl IntoIterator<Item = u64>) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for v in values {
        let sep = if out.is_empty() { "" } else { " " };
        // Writing to a String cannot fail.
        let _ = write!(out, "{sep}U+{v:04X}");
    }
    out.push('\n');
    out
}

/// The scalar values of `text`.
fn text_values(text: &str) -> impl Iterator<Item = u64> + '_ {
    text.chars().map(|c| u64::from(u32::from(c)))
}

/// The strict-mode error for `input`, as doc/architecture.md words it.
pub(super) fn strict_error(input: &str, offset: usize, kind: ErrorKind) -> CliError {
    CliError::new(exit::DATA, format!("{input}: offset {offset}: {kind}"))
}

/// Tells stderr what a lossy decode replaced.
fn print_report(input: &str, report: &DecodeReport) {
    for &(kind, offset, count) in &report.errors {
        eprintln!("mailcharset: {input}: offset {offset}: {kind} ({count}x)");
    }
    if report.replacements > 0 {
        eprintln!(
            "mailcharset: {input}: {} replacement(s) (U+FFFD) written",
            report.replacements
        );
    }
}

pub fn run(args: &CodecArgs) -> CliResult {
    let (input, bytes) = read_input(args.file.as_deref())?;
    if !is_plain_utf8(&args.charset) {
        return super::charset_codec::decode(args, &input, &bytes);
    }
    match args.mode {
        ModeArg::Strict => {
            let text = utf8::validate(&bytes)
                .map_err(|e| strict_error(&input, e.valid_up_to(), e.kind()))?;
            if args.codepoints {
                write_stdout(format_codepoints(text_values(text)).as_bytes())?;
            } else {
                write_stdout(text.as_bytes())?;
            }
        }
        ModeArg::Lossy => {
            let (text, report) = utf8::decode_lossy_with_report(&bytes);
            if args.codepoints {
                write_stdout(format_codepoints(text_values(&text)).as_bytes())?;
            } else {
                write_stdout(text.as_bytes())?;
            }
            print_report(&input, &report);
        }
        ModeArg::Legacy | ModeArg::Extended => {
            let opts = UcsOptions::default();
            let (values, report) = if args.mode == ModeArg::Legacy {
                let (v, r) = legacy::decode_lossy(&bytes, &opts);
                (v.into_iter().map(u64::from).collect::<Vec<_>>(), r)
            } else {
                extended::decode_lossy(&bytes, &opts)
            };
            if args.codepoints {
                write_stdout(format_codepoints(values).as_bytes())?;
            } else {
                let (text, replaced) = legacy::to_text(values);
                write_stdout(text.as_bytes())?;
                if replaced > 0 {
                    eprintln!(
                        "mailcharset: {input}: {replaced} value(s) not Unicode scalar values \
                         replaced by U+FFFD"
                    );
                }
            }
            print_report(&input, &report);
        }
    }
    Ok(exit::OK)
}
