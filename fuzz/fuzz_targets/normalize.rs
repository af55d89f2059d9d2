//! Normalization never panics, keeps the part structure, keeps every text
//! that decoded cleanly under its label, and is idempotent.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mailcharset::charset::{self, DecodeOptions};
use mailcharset::message::{Message, PartKind};
use mailcharset::normalize::{self, Options};
use mailcharset::Verdict;

/// (part id, media type, text when it decoded cleanly) for every leaf.
fn leaves(raw: &[u8]) -> Vec<(String, String, Option<String>)> {
    let msg = Message::parse(raw);
    msg.parts()
        .into_iter()
        .filter(|p| matches!(p.kind, PartKind::Leaf))
        .map(|p| {
            let text = p.is_text().then(|| {
                let (body, findings) = p.decoded_body(&msg);
                let d = charset::decode(&body, p.content_type.charset(), &DecodeOptions::default());
                (findings.is_empty() && d.verdict == Verdict::Ok)
                    .then(|| d.text.replace("\r\n", "\n"))
            });
            (p.id.clone(), p.content_type.mime_type(), text.flatten())
        })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let opts = Options::default();
    let Ok(once) = normalize::normalize(data, &opts) else {
        return;
    };
    let Ok(twice) = normalize::normalize(&once.bytes, &opts) else {
        panic!("normalized output failed to normalize");
    };
    assert_eq!(once.bytes, twice.bytes, "idempotence");
    let (before, after) = (leaves(data), leaves(&once.bytes));
    assert_eq!(before.len(), after.len(), "leaf count");
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(b.0, a.0, "part ids");
        if let (Some(tb), Some(ta)) = (&b.2, &a.2) {
            // The HTML meta rewrite is the one allowed change.
            if !b.1.contains("html") {
                assert_eq!(tb, ta, "text of part {}", b.0);
            }
        }
    }
});
