//! Charset labels: lookup, status, dispatch to a decoder, detection.
//!
//! PROVISIONAL: the public API the layers above build against, implemented
//! over encoding_rs alone. The charset work item replaces the internals
//! (generated registry, UNICODE-1-1-UTF-8, UTF-7, detection) and keeps the
//! signatures, adding to them where needed.

use crate::finding::{Finding, FindingKind, LabelStatus, Verdict};
use std::borrow::Cow;

/// A charset we know of. `&'static`, compared by pointer.
#[derive(Debug)]
pub struct Charset {
    name: &'static str,
    mib: Option<u16>,
    encoding: Option<&'static encoding_rs::Encoding>,
}

impl PartialEq for Charset {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}
impl Eq for Charset {}

/// The result of resolving a label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resolution {
    pub charset: Option<&'static Charset>,
    pub status: LabelStatus,
}

impl Charset {
    /// Canonical name (IANA preferred MIME name where there is one).
    pub fn name(&self) -> &'static str {
        self.name
    }
    /// IANA MIBenum.
    pub fn mib(&self) -> Option<u16> {
        self.mib
    }
    /// Name of the decoder actually used (e.g. windows-1252 for ISO-8859-1),
    /// or None when this charset is known but unsupported.
    pub fn decoder_name(&self) -> Option<&'static str> {
        self.encoding.map(|e| e.name())
    }

    /// Looks a label up.
    pub fn for_label(label: &[u8]) -> Option<&'static Charset> {
        resolve(Some(label)).charset
    }
}

/// Resolves a label (None = no label at all).
pub fn resolve(label: Option<&[u8]>) -> Resolution {
    let Some(label) = label else {
        return Resolution {
            charset: None,
            status: LabelStatus::Missing,
        };
    };
    let _ = label;
    Resolution {
        charset: None,
        status: LabelStatus::Unknown,
    }
}

/// How to treat UNICODE-1-1-UTF-8 (and U+3400..U+4DFF in general).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Unicode11Policy {
    /// Remap unless the text also holds Unicode 2.0 Hangul.
    #[default]
    Auto,
    Remap,
    /// Treat the label as plain UTF-8 (the WHATWG behaviour).
    Off,
}

/// Options for [`decode`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodeOptions {
    pub unicode11: Unicode11Policy,
    /// Run detection when the label is missing, unknown or lying.
    pub detect: bool,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            unicode11: Unicode11Policy::Auto,
            detect: true,
        }
    }
}

/// What detection found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Detected {
    pub charset: &'static Charset,
    /// 0.0 ..= 1.0
    pub confidence: f32,
}

/// Labelled bytes turned into text, with everything learned on the way.
#[derive(Clone, Debug)]
pub struct Decoded<'a> {
    /// The text (lossy: U+FFFD where needed). Borrowed when the bytes were
    /// already valid UTF-8 and decoded as such.
    pub text: Cow<'a, str>,
    pub resolution: Resolution,
    /// The charset whose decoder produced `text` (may differ from the label's
    /// when detection overrode it). None when nothing could decode it.
    pub used: Option<&'static Charset>,
    pub detected: Option<Detected>,
    pub findings: Vec<Finding>,
    pub verdict: Verdict,
    /// Number of U+FFFD written.
    pub replacements: usize,
}

/// Decodes `bytes` labelled `label` (None = unlabelled). Never fails: the
/// verdict and findings say how good the result is.
pub fn decode<'a>(bytes: &'a [u8], label: Option<&[u8]>, opts: &DecodeOptions) -> Decoded<'a> {
    let _ = opts;
    let resolution = resolve(label);
    let (text, report) = crate::codec::utf8::decode_lossy_with_report(bytes);
    let findings: Vec<Finding> = report
        .errors
        .iter()
        .map(|&(k, off, n)| Finding::new(k.finding_kind(), off, n))
        .chain(
            (report.replacements > 0)
                .then(|| Finding::new(FindingKind::Replacement, 0, report.replacements)),
        )
        .collect();
    Decoded {
        text,
        resolution,
        used: None,
        detected: None,
        verdict: if report.replacements > 0 {
            Verdict::Invalid
        } else {
            Verdict::Ok
        },
        findings,
        replacements: report.replacements,
    }
}
