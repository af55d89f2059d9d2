//! Reading an mbox and writing its messages back unchanged reproduces the
//! input byte for byte, in every format; reading never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mailcharset::mailbox::{MboxFlavor, MboxFormat, MboxReader, MessageWriter, OutputKind};
use std::io::Cursor;

fuzz_target!(|data: &[u8]| {
    for format in [MboxFormat::Mboxo, MboxFormat::Mboxrd, MboxFormat::ContentLength] {
        let flavor = MboxFlavor { format, crlf: false };
        let reader = MboxReader::new(Cursor::new(data.to_vec()), "fuzz", flavor);
        let out = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = SharedSink(out.clone());
        let Ok(mut w) = MessageWriter::to_stream(Box::new(sink), OutputKind::Mbox(flavor), "fuzz") else {
            return;
        };
        let mut ok = true;
        for m in reader {
            match m {
                Ok(m) => {
                    if w.write(&m, &m.bytes).is_err() {
                        ok = false;
                        break;
                    }
                }
                Err(_) => {
                    ok = false;
                    break;
                }
            }
        }
        if ok && w.finish().is_ok() && data.starts_with(b"From ") {
            let written = out.lock().map(|v| v.clone()).unwrap_or_default();
            assert_eq!(written, data, "{format:?}");
        }
    }
});

struct SharedSink(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for SharedSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| std::io::Error::other("poisoned"))?
            .extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
