//! `mailcharset label [--json] LABEL...`: how each label resolves.
//!
//! Exit status 0 whatever the labels are (unknown labels print with status
//! `unknown`); 74 when stdout fails.

use super::{CliResult, LabelArgs, exit, write_stdout};
use mailcharset::charset::{self, Support};
use serde::Serialize;

/// One line of `label --json` (fields in the documented order).
#[derive(Serialize)]
struct LabelJson<'a> {
    label: &'a str,
    charset: Option<&'a str>,
    status: &'a str,
    mib: Option<u16>,
    decoder: Option<&'a str>,
    /// Why there is no decoder (unsupported, or a label naming no charset).
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'a str>,
}

pub fn run(args: &LabelArgs) -> CliResult {
    let mut out = String::new();
    for label in &args.labels {
        let r = charset::resolve(Some(label.as_bytes()));
        let cs = r.charset;
        let support = cs.map(|c| c.support());
        let decoder = match support {
            Some(Support::Decoder(d)) => Some(d),
            _ => None,
        };
        let note = match support {
            Some(Support::Unsupported(reason)) => Some(format!("unsupported: {reason}")),
            Some(Support::Detect) => Some("names no charset: decoded by detection".to_string()),
            _ => None,
        };
        if args.json {
            let line = LabelJson {
                label,
                charset: cs.map(|c| c.name()),
                status: r.status.as_str(),
                mib: cs.and_then(|c| c.mib()),
                decoder,
                note: note.as_deref(),
            };
            out.push_str(&serde_json::to_string(&line).unwrap_or_default());
        } else {
            match cs {
                None => out.push_str(&format!("{label}: {} (no charset)", r.status)),
                Some(c) => {
                    out.push_str(&format!("{label}: {} ({})", c.name(), r.status));
                    if let Some(m) = c.mib() {
                        out.push_str(&format!(", MIBenum {m}"));
                    }
                    if let Some(d) = decoder {
                        out.push_str(&format!(", decoder {d}"));
                    }
                    if let Some(n) = &note {
                        out.push_str(&format!(", {n}"));
                    }
                }
            }
        }
        out.push('\n');
    }
    write_stdout(out.as_bytes())?;
    Ok(exit::OK)
}
