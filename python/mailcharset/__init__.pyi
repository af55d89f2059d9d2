"""Type stubs for mailcharset (see the module docstring in __init__.py)."""

import os
from typing import Any, Dict, Iterator, List, Literal, Optional, Union

__version__: str

Unicode11 = Literal["auto", "remap", "off"]

class Error(Exception):
    message: str
    offset: Optional[int]
    input: Optional[str]
    def __init__(self, message: str, offset: Optional[int] = ..., input: Optional[str] = ...) -> None: ...

class NormalizeError(Error): ...
class MailboxError(Error): ...

class Finding:
    kind: str
    offset: int
    count: int
    note: Optional[str]

class Part:
    part: str
    location: str
    label: Optional[str]
    charset: Optional[str]
    action: Literal["converted", "replaced", "kept", "unchanged"]
    verdict: str
    findings: List[Finding]

class NormalizeResult:
    bytes: bytes
    changed: bool
    message_id: Optional[str]
    parts: List[Part]
    dkim_signed: bool

class Decoded:
    text: str
    charset: Optional[str]
    verdict: str
    findings: List[Finding]
    label_status: str
    replacements: int

class Message:
    bytes: bytes
    index: int
    offset: int
    input: str

def normalize(
    raw: bytes,
    *,
    unicode11: Unicode11 = "auto",
    headers: Literal["encoded", "utf8"] = "encoded",
    on_error: Literal["replace", "keep", "fail"] = "replace",
    repair_cesu8: bool = False,
    eight_bit: bool = False,
    keep_dkim_signed: bool = False,
    convert_attachments: bool = False,
) -> NormalizeResult: ...
def audit(
    raw: bytes, *, input: Optional[str] = None, index: int = 0, unicode11: Unicode11 = "auto"
) -> List[Dict[str, Any]]: ...
def audit_jsonl(
    raw: bytes, *, input: Optional[str] = None, index: int = 0, unicode11: Unicode11 = "auto"
) -> str: ...
def decode(
    data: bytes,
    label: Optional[Union[str, bytes]],
    *,
    unicode11: Unicode11 = "auto",
    repair_cesu8: bool = False,
) -> Decoded: ...
def label(name: Union[str, bytes]) -> Dict[str, Any]: ...
def read_mbox(path: Union[str, os.PathLike[str]]) -> Iterator[Message]: ...
def read_maildir(path: Union[str, os.PathLike[str]]) -> Iterator[Message]: ...
def read_path(path: Union[str, os.PathLike[str]]) -> Iterator[Message]: ...
def looks_like_message(raw: bytes) -> bool: ...
