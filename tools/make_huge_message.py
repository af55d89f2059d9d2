#!/usr/bin/env python3
"""Writes an mbox with one oversized message (about SIZE MiB: a base64
attachment and a koi8-r text part) between two small ones, for measuring
how the archive pipeline copes with a single huge message:

    python3 tools/make_huge_message.py OUT.mbox [SIZE_MIB]   (default 100)

The output is a local measurement input, never committed."""
import base64
import sys

out_path = sys.argv[1]
size = int(sys.argv[2] if len(sys.argv) > 2 else 100) << 20
text = ("Съешь же ещё этих мягких французских булок, да выпей чаю.\n" * 4000).encode("koi8-r")
raw = bytes((i * 7 + (i >> 8)) & 0xFF for i in range(1 << 16))
attach_len = max(0, (size - len(text)) * 3 // 4)
payload = base64.encodebytes((raw * (attach_len // len(raw) + 1))[:attach_len])


def small(i):
    return (f"From a@example.org Thu Jan  1 00:00:00 2004\n"
            f"From: a@example.org\nSubject: small {i}\n"
            f"Content-Type: text/plain; charset=iso-8859-1\n\n"
            f"caf\xe9 {i}\n\n").encode("latin-1")


with open(out_path, "wb") as out:
    out.write(small(1))
    out.write(b"From b@example.org Thu Jan  1 00:00:00 2004\n"
              b"From: b@example.org\nSubject: huge\nMIME-Version: 1.0\n"
              b'Content-Type: multipart/mixed; boundary="b"\n\n'
              b"--b\nContent-Type: text/plain; charset=koi8-r\n"
              b"Content-Transfer-Encoding: 8bit\n\n")
    out.write(text)
    out.write(b"\n--b\nContent-Type: application/octet-stream\n"
              b"Content-Transfer-Encoding: base64\n\n")
    out.write(payload)
    out.write(b"--b--\n\n")
    out.write(small(2))
print(f"{out_path}: 3 messages, {len(text) + len(payload)} bytes in the large one")
