//! The process-level baseline of `tools/process_bench.sh` (issue 18):
//! mail-parser 0.11 reading an mbox, parsing every message and decoding
//! every text part (what `mailcharset normalize` and `audit` must at least
//! do). Prints the messages and the octets of text decoded.
//!
//!     cargo run --release --example mail_parser_mbox -- FILE.mbox

use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: mail_parser_mbox FILE.mbox");
        return ExitCode::from(64);
    };
    let data = match std::fs::read(&path) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("mail_parser_mbox: {}: {e}", path.to_string_lossy());
            return ExitCode::from(66);
        }
    };
    let parser = mail_parser::MessageParser::default();
    let (mut messages, mut text) = (0usize, 0usize);
    // mboxrd: a message starts at each "From " line at the start of a line.
    for raw in mail_parser::mailbox::mbox::MessageIterator::new(&data[..]) {
        let Ok(raw) = raw else { continue };
        messages += 1;
        if let Some(msg) = parser.parse(raw.contents()) {
            text += msg.subject().map_or(0, str::len);
            for part in &msg.parts {
                if let mail_parser::PartType::Text(t) | mail_parser::PartType::Html(t) = &part.body
                {
                    text += t.len();
                }
            }
        }
    }
    println!("{messages} messages, {text} octets of text");
    ExitCode::SUCCESS
}
