//! Lossy decoding is byte-identical to encoding_rs and std, borrows exactly
//! when the input is valid, and the streaming decoder split anywhere agrees.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mailcharset::codec::utf8::{self, Utf8Decoder};
use std::borrow::Cow;

fuzz_target!(|data: &[u8]| {
    let (ours, report) = utf8::decode_lossy_with_report(data);
    let (theirs, had_errors) = encoding_rs::UTF_8.decode_without_bom_handling(data);
    assert_eq!(ours, theirs);
    assert_eq!(ours, String::from_utf8_lossy(data));
    // The path without a report is separate code.
    assert_eq!(utf8::decode_lossy(data), ours);
    assert_eq!(had_errors, !report.is_clean());
    assert_eq!(
        matches!(ours, Cow::Borrowed(_)),
        std::str::from_utf8(data).is_ok()
    );

    // Split at a point chosen by the data itself.
    let cut = data
        .first()
        .map_or(0, |&b| usize::from(b) % (data.len() + 1));
    let mut dec = Utf8Decoder::new();
    let mut out = String::new();
    let _ = dec.decode(&data[..cut], &mut out, false);
    let _ = dec.decode(&data[cut..], &mut out, true);
    assert_eq!(out, ours);
    assert_eq!(dec.report(), &report);
});
