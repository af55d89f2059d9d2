#!/usr/bin/env python3
"""Runs examples/dask_normalize.py on a real multi-process Dask cluster on
loopback (LocalCluster, worker processes) with 1 and with 2 workers, and checks
its output against the CLI on the same files, byte for byte:

- every normalized file == `mailcharset normalize -o DIR INPUT` for that file;
- the audit shards, concatenated in shard order == `mailcharset audit --format jsonl INPUT`;
- the 1-worker and 2-worker runs, and a re-run of one shard, are identical.

Input: ../shared/corpus/linux-mips-archive/msgs when present (the first
--limit files in name order with --limit), else generated messages (said so).
Prints the throughput of each run. Exit status 0 only when everything matched.

    python python/tests/cluster_check.py --cli target/release/mailcharset [--limit N]
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus" / "linux-mips-archive" / "msgs"
sys.path.insert(0, str(ROOT / "examples"))

import dask_normalize  # noqa: E402


def generate(dst: Path, n: int) -> None:
    rng = random.Random(19)
    charsets = [("iso-8859-1", "latin-1"), ("koi8-r", "koi8_r"), ("utf-8", "utf-8"), ("windows-1252", "cp1252")]
    words = ["Grüße", "café", "Привет", "naïve", "mips", "kernel", "€uro", "plain"]
    for i in range(n):
        label, codec = rng.choice(charsets)
        text = " ".join(rng.choice(words) for _ in range(rng.randrange(3, 40)))
        body = text.encode(codec, "replace")
        if rng.random() < 0.1:
            body += b"\xff\xfe broken"
        subj = rng.choice(words).encode(codec, "replace")
        raw = (
            b"From: a@example.org\nSubject: " + subj + b"\nMessage-ID: <" + str(i).encode() + b"@gen>\n"
            b"Content-Type: text/plain; charset=" + label.encode() + b"\n\n" + body + b"\n"
        )
        d = dst / f"{i // 500:03d}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"{i:06d}.eml").write_bytes(raw)


def run_job(out: Path, inp: str, workers: int) -> dict:
    r = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "dask_normalize.py"), str(out), inp, "--workers", str(workers)],
        capture_output=True,
        timeout=900,
    )
    if r.returncode != 0:
        sys.exit(f"job failed ({workers} workers): {r.stderr.decode(errors='replace')[-3000:]}")
    return json.loads(r.stdout.decode().strip().splitlines()[-1])


def tree(d: Path) -> dict:
    return {str(p.relative_to(d)): p for p in sorted(d.rglob("*")) if p.is_file()}


def compare_with_cli(out: Path, inp: str, cli: str, cli_out: Path) -> int:
    # Normalized: the shard folders together mirror the CLI's folder output.
    ours = {}
    for shard in sorted((out / "normalized").iterdir()):
        for rel, p in tree(shard).items():
            assert rel not in ours, f"{rel} in two shards"
            ours[rel] = p
    # The CLI's directory output carries its marker (doc/mailbox.md).
    theirs = {r: p for r, p in tree(cli_out).items() if r != ".mailcharset-output"}
    if sorted(ours) != sorted(theirs):
        missing = sorted(set(theirs) - set(ours))[:5]
        extra = sorted(set(ours) - set(theirs))[:5]
        sys.exit(f"FAIL: file lists differ: missing {missing}, extra {extra}")
    bad = [rel for rel in ours if not filecmp.cmp(ours[rel], theirs[rel], shallow=False)]
    if bad:
        sys.exit(f"FAIL: {len(bad)} normalized files differ from the CLI's, e.g. {bad[:5]}")
    # Audit: the shards in order are the CLI's JSON lines, byte for byte.
    want = subprocess.run([cli, "audit", "--format", "jsonl", inp], capture_output=True, timeout=600).stdout
    got = b"".join(p.read_bytes() for p in sorted((out / "audit").glob("shard-*.jsonl")))
    if got != want:
        sys.exit(f"FAIL: audit records differ from `mailcharset audit --format jsonl` ({len(got)} vs {len(want)} bytes)")
    return len(ours)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--limit", type=int, default=0, help="use the first N corpus files only")
    ap.add_argument("--generate", type=int, default=2000, help="messages to generate when the corpus is absent")
    ap.add_argument("--corpus", type=Path, default=CORPUS, help="a directory of message files")
    args = ap.parse_args()
    corpus = args.corpus
    work = Path(tempfile.mkdtemp(prefix="mailcharset-cluster-"))
    try:
        if corpus.is_dir():
            if args.limit:
                inp = work / "msgs"
                files = sorted(p for p in corpus.rglob("*") if p.is_file())[: args.limit]
                for f in files:
                    d = inp / f.relative_to(corpus)
                    d.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(f, d)
                print(f"input: first {len(files)} files of {corpus}")
            else:
                inp = corpus
                print(f"input: {corpus}")
        else:
            inp = work / "msgs"
            generate(inp, args.generate)
            print(f"input: {args.generate} GENERATED messages ({corpus} is absent)")
        inp = str(inp)
        cli_out = work / "cli"
        r = subprocess.run([args.cli, "normalize", "-o", str(cli_out), inp], capture_output=True, timeout=600)
        if r.returncode != 0:
            sys.exit(f"CLI normalize failed: {r.stderr.decode(errors='replace')}")
        runs = {}
        for workers in (1, 2):
            out = work / f"out{workers}"
            stats = run_job(out, inp, workers)
            n = compare_with_cli(out, inp, args.cli, cli_out)
            runs[workers] = out
            print(
                f"{workers} worker(s): {stats['messages']} messages, {stats['bytes']} bytes, "
                f"{stats['seconds']} s, {stats['messages_per_second']} messages/s; "
                f"{n} files and the audit records identical to the CLI's"
            )
        # The two runs are the same bytes, and a re-run of shard 0 changes nothing.
        if json.loads((runs[1] / "summary.json").read_text()) != json.loads((runs[2] / "summary.json").read_text()):
            sys.exit("FAIL: summaries differ between 1 and 2 workers")
        before = {k: p.read_bytes() for k, p in tree(runs[2]).items()}
        shards = dask_normalize.plan_shards([inp], 200)
        dask_normalize.process_shard(str(runs[2]), 0, shards[0][0], shards[0][1], {"headers": "encoded", "on_error": "replace"})
        shutil.rmtree(runs[2] / "tmp", ignore_errors=True)
        after = {k: p.read_bytes() for k, p in tree(runs[2]).items()}
        if before != after:
            sys.exit("FAIL: re-running shard 0 changed the output")
        print("re-run of shard 0: byte-identical; summaries of both runs equal")
        print("OK")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
