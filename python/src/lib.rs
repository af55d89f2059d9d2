//! The native half of the `mailcharset` Python package (`mailcharset._native`).
//!
//! Thin: every function calls the crate's public API and hands back Python
//! bytes, strings and JSON made by the crate's own serde types (so an audit
//! record is the very line `audit --format jsonl` writes). The Python half
//! (`mailcharset/__init__.py`) turns them into result objects and turns
//! `NativeError` into the `mailcharset.Error` subclasses. The GIL is released
//! while Rust works.

use mailcharset::audit::{self, AuditOptions, Format, MessageContext};
use mailcharset::charset::{self, DecodeOptions, Support, Unicode11Policy};
use mailcharset::mailbox::{self, InputKind, MailboxError, MessageReader, Origin};
use mailcharset::normalize::{self, HeaderMode, NormalizeError, OnError, Options};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::path::PathBuf;
use std::sync::Mutex;

create_exception!(
    _native,
    NativeError,
    PyException,
    "Raised by the native module with (kind, message, offset, input, details); mailcharset re-raises it as an Error subclass."
);

fn native_err(kind: &str, message: String, offset: Option<u64>, input: Option<String>) -> PyErr {
    NativeError::new_err((kind.to_string(), message, offset, input))
}

fn unicode11(name: &str) -> PyResult<Unicode11Policy> {
    match name {
        "auto" => Ok(Unicode11Policy::Auto),
        "remap" => Ok(Unicode11Policy::Remap),
        "off" => Ok(Unicode11Policy::Off),
        _ => Err(PyValueError::new_err(format!(
            "unicode11 must be 'auto', 'remap' or 'off', not {name:?}"
        ))),
    }
}

/// normalize(raw, unicode11, headers, on_error, repair_cesu8, eight_bit,
/// keep_dkim_signed, convert_attachments) -> (bytes, report JSON)
#[pyfunction]
#[pyo3(signature = (raw, unicode11_policy, headers, on_error, repair_cesu8, eight_bit, keep_dkim_signed, convert_attachments))]
#[pyo3(name = "normalize")]
fn py_normalize(
    py: Python<'_>,
    raw: &[u8],
    unicode11_policy: &str,
    headers: &str,
    on_error: &str,
    repair_cesu8: bool,
    eight_bit: bool,
    keep_dkim_signed: bool,
    convert_attachments: bool,
) -> PyResult<(Py<PyBytes>, String)> {
    let opts = Options {
        unicode11: unicode11(unicode11_policy)?,
        headers: match headers {
            "encoded" => HeaderMode::Encoded,
            "utf8" => HeaderMode::Utf8,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "headers must be 'encoded' or 'utf8', not {headers:?}"
                )));
            }
        },
        on_error: match on_error {
            "replace" => OnError::Replace,
            "keep" => OnError::Keep,
            "fail" => OnError::Fail,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "on_error must be 'replace', 'keep' or 'fail', not {on_error:?}"
                )));
            }
        },
        eight_bit,
        repair_cesu8,
        keep_dkim_signed,
        convert_attachments,
        ..Options::default()
    };
    let result = py.detach(|| {
        normalize::normalize(raw, &opts).map(|n| {
            let report = serde_json::to_string(&n.report);
            (n.bytes.into_owned(), report)
        })
    });
    match result {
        Ok((bytes, report)) => {
            let report = report.map_err(|e| PyValueError::new_err(e.to_string()))?;
            Ok((PyBytes::new(py, &bytes).unbind(), report))
        }
        Err(e) => {
            let offset = match &e {
                NormalizeError::Undecodable { offset, .. } => Some(*offset as u64),
                _ => None,
            };
            Err(native_err("normalize", e.to_string(), offset, None))
        }
    }
}

/// audit(raw, input, index, unicode11) -> the `audit --format jsonl` lines.
#[pyfunction]
#[pyo3(signature = (raw, input, index, unicode11_policy))]
#[pyo3(name = "audit")]
fn py_audit(
    py: Python<'_>,
    raw: &[u8],
    input: &str,
    index: usize,
    unicode11_policy: &str,
) -> PyResult<String> {
    let opts = AuditOptions {
        unicode11: unicode11(unicode11_policy)?,
        ..AuditOptions::default()
    };
    let out = py.detach(|| {
        let records = audit::audit_message(raw, &MessageContext { input, index }, &opts);
        let mut out = Vec::new();
        audit::write_records(&mut out, Format::Jsonl, &records).map(|_| out)
    });
    let out = out.map_err(|e| PyValueError::new_err(e.to_string()))?;
    String::from_utf8(out).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// decode(data, label, unicode11, repair_cesu8)
/// -> (text, charset, verdict, findings JSON, label status, replacements)
#[pyfunction]
#[pyo3(signature = (data, label, unicode11_policy, repair_cesu8))]
#[allow(clippy::type_complexity)]
#[pyo3(name = "decode")]
fn py_decode(
    py: Python<'_>,
    data: &[u8],
    label: Option<&[u8]>,
    unicode11_policy: &str,
    repair_cesu8: bool,
) -> PyResult<(
    String,
    Option<&'static str>,
    &'static str,
    String,
    &'static str,
    usize,
)> {
    let opts = DecodeOptions {
        unicode11: unicode11(unicode11_policy)?,
        repair_cesu8,
        ..DecodeOptions::default()
    };
    let (text, used, verdict, findings, status, replacements) = py.detach(|| {
        let d = charset::decode(data, label, &opts);
        (
            d.text.into_owned(),
            d.used.map(|c| c.name()),
            d.verdict.as_str(),
            serde_json::to_string(&d.findings),
            d.resolution.status.as_str(),
            d.replacements,
        )
    });
    let findings = findings.map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok((text, used, verdict, findings, status, replacements))
}

/// label(name) -> dict
#[pyfunction]
#[pyo3(name = "label")]
fn py_label<'py>(py: Python<'py>, name: &[u8]) -> PyResult<Bound<'py, PyDict>> {
    let r = charset::resolve(Some(name));
    let d = PyDict::new(py);
    d.set_item("label", String::from_utf8_lossy(name).into_owned())?;
    d.set_item("status", r.status.as_str())?;
    d.set_item("charset", r.charset.map(|c| c.name()))?;
    d.set_item("mib", r.charset.and_then(|c| c.mib()))?;
    d.set_item("iana_name", r.charset.and_then(|c| c.iana_name()))?;
    let (support, decoder, reason) = match r.charset.map(|c| c.support()) {
        None => ("unknown", None, None),
        Some(Support::Decoder(n)) => ("decoder", Some(n), None),
        Some(Support::Detect) => ("detect", None, None),
        Some(Support::Unsupported(why)) => ("unsupported", None, Some(why)),
    };
    d.set_item("support", support)?;
    d.set_item("decoder", decoder)?;
    d.set_item("unsupported_reason", reason)?;
    Ok(d)
}

fn mailbox_err(e: &MailboxError) -> PyErr {
    native_err(
        "mailbox",
        e.to_string(),
        e.offset(),
        Some(e.path().to_string_lossy().into_owned()),
    )
}

/// An iterator of (bytes, index, offset, name) over an archive.
#[pyclass(module = "mailcharset._native")]
struct Reader {
    inner: Mutex<MessageReader>,
    input: PathBuf,
    folder: bool,
}

#[pymethods]
impl Reader {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    #[allow(clippy::type_complexity)]
    fn __next__(&self, py: Python<'_>) -> PyResult<Option<(Py<PyBytes>, usize, u64, String)>> {
        let next = py.detach(|| match self.inner.lock() {
            Ok(mut r) => r.next(),
            Err(mut poisoned) => poisoned.get_mut().next(),
        });
        match next {
            None => Ok(None),
            Some(Err(e)) => Err(mailbox_err(&e)),
            Some(Ok(m)) => {
                // The name `audit` gives the message's records.
                let name = match &m.origin {
                    Origin::Maildir {
                        folder,
                        subdir,
                        name,
                    } => self.input.join(folder).join(subdir.as_str()).join(name),
                    Origin::File { relative } if self.folder => self.input.join(relative),
                    _ => self.input.clone(),
                };
                let name = name.display().to_string();
                // The index within the file `name` (as `audit` numbers it): a
                // file of a folder or Maildir is message 0 of its own name.
                let index = match &m.origin {
                    Origin::Maildir { .. } => 0,
                    Origin::File { .. } if self.folder => 0,
                    _ => m.index,
                };
                Ok(Some((
                    PyBytes::new(py, &m.bytes).unbind(),
                    index,
                    m.offset,
                    name,
                )))
            }
        }
    }
}

fn open(py: Python<'_>, path: PathBuf, want: &str) -> PyResult<Reader> {
    let reader = py.detach(|| -> Result<MessageReader, MailboxError> {
        let kind = match want {
            "maildir" => InputKind::Maildir,
            _ => mailbox::detect(&path)?,
        };
        MessageReader::open(&path, kind)
    });
    let reader = reader.map_err(|e| mailbox_err(&e))?;
    if want == "mbox" && !matches!(reader.kind(), InputKind::Mbox(_)) {
        return Err(native_err(
            "mailbox",
            format!(
                "{}: not an mbox (no \"From \" line at the start)",
                path.display()
            ),
            Some(0),
            Some(path.to_string_lossy().into_owned()),
        ));
    }
    Ok(Reader {
        folder: matches!(reader.kind(), InputKind::Folder),
        inner: Mutex::new(reader),
        input: path,
    })
}

/// read_mbox(path) -> Reader
#[pyfunction]
fn read_mbox(py: Python<'_>, path: PathBuf) -> PyResult<Reader> {
    open(py, path, "mbox")
}

/// read_maildir(path) -> Reader
#[pyfunction]
fn read_maildir(py: Python<'_>, path: PathBuf) -> PyResult<Reader> {
    open(py, path, "maildir")
}

/// read_any(path) -> Reader (the kind detected as the CLI does)
#[pyfunction]
fn read_any(py: Python<'_>, path: PathBuf) -> PyResult<Reader> {
    open(py, path, "any")
}

/// looks_like_message(raw) -> bool: whether a file starts like a message
/// (a header field or a `From ` line first), as the command line asks of a
/// file before it reads it as one.
#[pyfunction]
fn looks_like_message(raw: &[u8]) -> bool {
    mailbox::looks_like_message(raw)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("NativeError", m.py().get_type::<NativeError>())?;
    m.add_class::<Reader>()?;
    m.add_function(wrap_pyfunction!(py_normalize, m)?)?;
    m.add_function(wrap_pyfunction!(py_audit, m)?)?;
    m.add_function(wrap_pyfunction!(py_decode, m)?)?;
    m.add_function(wrap_pyfunction!(py_label, m)?)?;
    m.add_function(wrap_pyfunction!(read_mbox, m)?)?;
    m.add_function(wrap_pyfunction!(read_maildir, m)?)?;
    m.add_function(wrap_pyfunction!(read_any, m)?)?;
    m.add_function(wrap_pyfunction!(looks_like_message, m)?)?;
    Ok(())
}
