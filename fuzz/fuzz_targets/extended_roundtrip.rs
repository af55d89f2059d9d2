//! UTF-E-8: decode then encode gives the same octets, encode then decode
//! gives the same values, and it equals RFC 2279 below 0x80000000.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mailcharset::codec::extended;
use mailcharset::codec::legacy::{self, UcsOptions};

fuzz_target!(|data: &[u8]| {
    let opts = UcsOptions::default();
    if let Ok(values) = extended::decode(data, &opts) {
        assert_eq!(extended::encode(&values).as_deref(), Ok(data));
        if values.iter().all(|&v| v <= u64::from(legacy::MAX)) {
            let narrow: Vec<u32> = values.iter().map(|&v| v as u32).collect();
            assert_eq!(legacy::decode(data, &opts), Ok(narrow));
        }
    }
    let _ = extended::decode_lossy(data, &opts);
    let values: Vec<u64> = data
        .chunks_exact(8)
        .map(|c| {
            let mut a = [0u8; 8];
            a.copy_from_slice(c);
            u64::from_le_bytes(a) & extended::MAX
        })
        .collect();
    let bytes = extended::encode(&values).expect("63-bit values encode");
    assert_eq!(extended::decode(&bytes, &opts), Ok(values));
});
