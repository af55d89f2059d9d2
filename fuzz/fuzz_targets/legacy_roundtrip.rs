//! RFC 2279: decode then encode gives the same octets (shortest form is
//! unique), and encode then decode gives the same values.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mailcharset::codec::legacy::{self, UcsOptions};

fuzz_target!(|data: &[u8]| {
    let opts = UcsOptions::default();
    if let Ok(values) = legacy::decode(data, &opts) {
        assert_eq!(legacy::encode(&values).as_deref(), Ok(data));
    }
    let _ = legacy::decode_lossy(data, &opts);
    let values: Vec<u32> = data
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) & legacy::MAX)
        .collect();
    let bytes = legacy::encode(&values).expect("31-bit values encode");
    assert_eq!(legacy::decode(&bytes, &opts), Ok(values));
});
