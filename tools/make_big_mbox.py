#!/usr/bin/env python3
"""Writes an mbox of about SIZE bytes from the linux-mips messages in
../shared/corpus (repeated), for measuring memory and throughput:

    python3 tools/make_big_mbox.py OUT.mbox [SIZE_MIB]   (default 1024)

The output is a local measurement input, never committed."""
import os
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared",
                    "corpus", "linux-mips-archive", "msgs")
out_path = sys.argv[1]
target = int(sys.argv[2] if len(sys.argv) > 2 else 1024) << 20
msgs = []
for year in sorted(os.listdir(root)):
    for name in sorted(os.listdir(os.path.join(root, year))):
        with open(os.path.join(root, year, name), "rb") as f:
            msgs.append(f.read())
written = 0
with open(out_path, "wb") as out:
    i = 0
    while written < target:
        m = msgs[i % len(msgs)]
        body = b"".join(b">" + line if line.startswith(b"From ") else line
                        for line in m.splitlines(keepends=True))
        chunk = b"From archive@example.org Thu Jan  1 00:00:00 2004\n" + body
        if not chunk.endswith(b"\n"):
            chunk += b"\n"
        chunk += b"\n"
        out.write(chunk)
        written += len(chunk)
        i += 1
print(f"{out_path}: {i} messages, {written} bytes")
