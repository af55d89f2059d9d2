//! The header layer never panics, every field's raw bytes tile the header
//! section, and decoding every field the way the consumers do terminates.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mailcharset::mime;

fuzz_target!(|data: &[u8]| {
    let h = mime::parse_header_block(data);
    let joined: Vec<u8> = h.fields.iter().flat_map(|f| f.raw.iter().copied()).collect();
    assert_eq!(&joined[..], &data[..h.header_end]);
    assert!(h.header_end <= h.body_offset && h.body_offset <= data.len());
    for f in &h.fields {
        let _ = mime::decode_unstructured(f.value);
        let _ = mime::parse_address_list(f.value);
        let ct = mime::ContentType::parse(f.value);
        let _ = ct.charset();
        let _ = mime::ContentDisposition::parse(f.value);
    }
    // The encoded-word writer's output decodes back to its input.
    if let Ok(s) = std::str::from_utf8(data) {
        let s: String = s.chars().filter(|c| !c.is_control()).take(300).collect();
        let opts = mime::WriteOptions::default();
        let written = mime::write_unstructured("Subject", &s, &opts);
        let field = mime::parse_header_block(written.as_bytes());
        if let Some(f) = field.fields.first() {
            let back = mime::decode_unstructured(f.value);
            // Unstructured values are trimmed and their white space runs
            // are not significant: compare with runs folded.
            let norm = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
            assert_eq!(norm(&back.text), norm(&s), "{written:?}");
        }
    }
});
