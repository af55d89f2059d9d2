"""mailcharset: charset-aware mail processing, from Python.

The work is done by the Rust crate ``mailcharset`` (the same code as the
``mailcharset`` command); the GIL is released while it runs, so threads scale.

- :func:`normalize` rewrites one message as clean UTF-8 (``mailcharset normalize``).
- :func:`audit` returns the records ``mailcharset audit --format jsonl`` writes.
- :func:`decode` and :func:`label` expose the charset layer.
- :func:`read_mbox`, :func:`read_maildir` and :func:`read_path` stream raw
  messages out of archives with the crate's own readers.

Bad input raises a :class:`Error` subclass naming the offset; it never
crashes the interpreter.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
import os
from typing import Any, Dict, Iterator, List, Optional, Union

from . import _native

__all__ = [
    "Error",
    "NormalizeError",
    "MailboxError",
    "Finding",
    "Part",
    "NormalizeResult",
    "Decoded",
    "Message",
    "normalize",
    "audit",
    "decode",
    "label",
    "read_mbox",
    "read_maildir",
    "read_path",
    "audit_jsonl",
    "looks_like_message",
]

__version__ = "0.1.0"


class Error(Exception):
    """Base of every error mailcharset raises for bad input.

    ``offset`` is the byte offset in the message (normalize) or in the
    archive (readers) where the problem is, or None; ``input`` names the
    file, or None.
    """

    def __init__(self, message: str, offset: Optional[int] = None, input: Optional[str] = None):
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.input = input


class NormalizeError(Error):
    """Normalization stopped (``on_error="fail"``): text that cannot be decoded cleanly."""


class MailboxError(Error):
    """An archive could not be read (I/O error, not an mbox, ...)."""


def _raise(e: _native.NativeError) -> "Error":
    kind, message, offset, input = e.args
    cls = {"normalize": NormalizeError, "mailbox": MailboxError}.get(kind, Error)
    return cls(message, offset, input)


@dataclass(frozen=True)
class Finding:
    """One thing learned while decoding (kind as in ``audit``'s records)."""

    kind: str
    offset: int
    count: int
    note: Optional[str] = None

    @classmethod
    def _from(cls, d: Dict[str, Any]) -> "Finding":
        return cls(d["kind"], d["offset"], d["count"], d.get("note"))


@dataclass(frozen=True)
class Part:
    """What normalize did to one location: a body or a header field."""

    part: str
    location: str
    label: Optional[str]
    charset: Optional[str]
    action: str
    verdict: str
    findings: List[Finding] = field(default_factory=list)


@dataclass(frozen=True)
class NormalizeResult:
    """The normalized message (``bytes``), whether it differs from the input
    (``changed``), the Message-ID, one :class:`Part` per body or rewritten field,
    and whether it was left as it came for its DKIM signature
    (``keep_dkim_signed``; what would have been rewritten is ``kept``)."""

    bytes: bytes
    changed: bool
    message_id: Optional[str]
    parts: List[Part]
    dkim_signed: bool = False


@dataclass(frozen=True)
class Decoded:
    """Text decoded from labelled bytes (lossy: U+FFFD where needed)."""

    text: str
    charset: Optional[str]
    verdict: str
    findings: List[Finding]
    label_status: str
    replacements: int


@dataclass(frozen=True)
class Message:
    """One raw message read from an archive: its bytes, its 0-based index
    within the file ``input`` (always 0 for a file of a folder or Maildir),
    its byte offset in the input, and ``input``, the name ``mailcharset
    audit`` gives its records (the path as given, joined with the file's
    place in a folder or Maildir).

    Unlike ``mailcharset audit`` on a folder, :func:`read_path` reads every
    file of a folder as one message (an mbox inside a folder, which audit
    and normalize read as an mbox when it is clearly one, is not opened:
    read it with :func:`read_mbox`), and it does not skip files that do not
    start like a message."""

    bytes: bytes
    index: int
    offset: int
    input: str


def normalize(
    raw: bytes,
    *,
    unicode11: str = "auto",
    headers: str = "encoded",
    on_error: str = "replace",
    repair_cesu8: bool = False,
    eight_bit: bool = False,
    keep_dkim_signed: bool = False,
    convert_attachments: bool = False,
) -> NormalizeResult:
    """Normalize one message to clean UTF-8, as ``mailcharset normalize`` does.

    unicode11: "auto" | "remap" | "off"; headers: "encoded" (RFC 2047) |
    "utf8" (RFC 6532); on_error: "replace" | "keep" | "fail" (raises
    :class:`NormalizeError` with the offset); eight_bit: write converted
    bodies as 8bit instead of quoted-printable/base64; keep_dkim_signed:
    leave a message with a DKIM-Signature field as it came (a rewrite would
    make the signature fail for every later verifier); convert_attachments:
    convert attached text files too (by default kept byte for byte).
    """
    try:
        out, report = _native.normalize(
            bytes(raw), unicode11, headers, on_error, repair_cesu8, eight_bit,
            keep_dkim_signed, convert_attachments,
        )
    except _native.NativeError as e:
        raise _raise(e) from None
    r = json.loads(report)
    parts = [
        Part(
            p["part"],
            p["location"],
            p.get("label"),
            p.get("charset"),
            p["action"],
            p["verdict"],
            [Finding._from(f) for f in p["findings"]],
        )
        for p in r["parts"]
    ]
    return NormalizeResult(out, r["changed"], r.get("message_id"), parts, r.get("dkim_signed", False))


def audit_jsonl(raw: bytes, *, input: Optional[str] = None, index: int = 0, unicode11: str = "auto") -> str:
    """The lines ``mailcharset audit --format jsonl`` writes for this message."""
    return _native.audit(bytes(raw), "-" if input is None else str(input), index, unicode11)


def audit(
    raw: bytes, *, input: Optional[str] = None, index: int = 0, unicode11: str = "auto"
) -> List[Dict[str, Any]]:
    """Audit one message: the records ``mailcharset audit --format jsonl``
    writes, one dict each (made by the crate's own serializer).

    input names the message's file in the records ("-" when None, as for
    standard input); index is its 0-based position in that input.
    """
    text = audit_jsonl(raw, input=input, index=index, unicode11=unicode11)
    return [json.loads(line) for line in text.splitlines() if line]


def decode(
    data: bytes, label: Optional[Union[str, bytes]], *, unicode11: str = "auto", repair_cesu8: bool = False
) -> Decoded:
    """Decode bytes under a charset label (None: no label, detection decides)."""
    if isinstance(label, str):
        label = label.encode("utf-8", "surrogateescape")
    text, charset, verdict, findings, status, replacements = _native.decode(
        bytes(data), label, unicode11, repair_cesu8
    )
    return Decoded(text, charset, verdict, [Finding._from(f) for f in json.loads(findings)], status, replacements)


def label(name: Union[str, bytes]) -> Dict[str, Any]:
    """Resolve a charset label: {label, status, charset, mib, iana_name,
    support, decoder, unsupported_reason}."""
    if isinstance(name, str):
        name = name.encode("utf-8", "surrogateescape")
    return _native.label(name)


def _messages(reader: Any) -> Iterator[Message]:
    while True:
        try:
            item = next(reader)
        except StopIteration:
            return
        except _native.NativeError as e:
            raise _raise(e) from None
        yield Message(*item)


def _open(fn: Any, path: Any) -> Iterator[Message]:

    try:
        reader = fn(os.fspath(path))
    except _native.NativeError as e:
        raise _raise(e) from None
    return _messages(reader)


def read_mbox(path: Union[str, "os.PathLike[str]"]) -> Iterator[Message]:
    """Stream the messages of an mbox file (``>From `` quoting undone).
    Raises :class:`MailboxError` when it is not an mbox or cannot be read."""
    return _open(_native.read_mbox, path)


def read_maildir(path: Union[str, "os.PathLike[str]"]) -> Iterator[Message]:
    """Stream the messages of a Maildir (cur/ and new/, Maildir++ folders)."""
    return _open(_native.read_maildir, path)


def read_path(path: Union[str, "os.PathLike[str]"]) -> Iterator[Message]:
    """Stream the messages of any input the CLI reads (mbox, Maildir, a
    folder of files, one .eml), its kind detected as the CLI does."""
    return _open(_native.read_any, path)


def looks_like_message(raw: bytes) -> bool:
    """Whether a file starts like a message: its first line a header field
    or an mbox ``From `` line (after a UTF-8 BOM and blank lines). The CLI
    keeps a file that does not (notes, a photo, a compressed file) byte for
    byte and does not audit it; ``normalize`` reads whatever it is given as
    a message, so ask this first of files that may not be mail."""
    return _native.looks_like_message(bytes(raw))
