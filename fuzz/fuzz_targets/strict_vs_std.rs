//! Strict validation agrees with std on validity, valid_up_to and error_len.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mailcharset::codec::utf8;

fuzz_target!(|data: &[u8]| {
    let ours = utf8::validate(data).map_err(|e| (e.valid_up_to(), e.error_len()));
    let std = std::str::from_utf8(data).map_err(|e| (e.valid_up_to(), e.error_len()));
    assert_eq!(ours, std);
});
