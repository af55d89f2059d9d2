#!/usr/bin/env python3
"""Normalize and audit a mail archive on a Dask cluster with the mailcharset
Python package.

    python examples/dask_normalize.py OUT INPUT... [--workers 2 | --scheduler tcp://host:8786]

INPUT: mbox files, Maildirs, or directories of message files (every regular
file below one, read recursively in name order, as the CLI does). Sharding is
by file: a shard is one mbox or Maildir, or up to --files-per-shard files of a
directory, and never splits a file across workers.

OUT gets, per shard N (names fixed by the input list, not by the run):
  OUT/normalized/shard-N/<path>    each message normalized; a message file
                                   keeps its path relative to its directory
                                   input, a message of an mbox or Maildir is
                                   written as <input name>/<index>.eml
  OUT/audit/shard-N.jsonl          the records of `mailcharset audit --format jsonl`
and at the end OUT/summary.json: counts of label x verdict over all records.

Crash safety: each shard is written in a temporary name under OUT/tmp and
renamed into place (a directory for normalized/, a file for audit/), so a task
killed half-way or retried never leaves half a file; the output of a shard
depends only on its input, so a retry writes the same bytes.

Why Dask: mail-archive teams are Python teams (mailbox, email, notebooks);
Dask is pip-installable, needs no JVM, and its LocalCluster is the same
scheduler/worker protocol as a real cluster (dask-ssh, Kubernetes, SLURM via
dask-jobqueue). On a real cluster only --scheduler and the paths change (the
paths must be visible to every worker: NFS, or a shared file system).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Tuple


def plan_shards(inputs: List[str], files_per_shard: int) -> List[Tuple[str, List[str]]]:
    """[(kind, [paths])]: ("archive", [mbox or Maildir]) or ("files", [...])."""
    shards: List[Tuple[str, List[str]]] = []
    for inp in inputs:
        p = Path(inp)
        if p.is_dir() and not (p / "cur").is_dir():
            files = sorted(
                (str(Path(root) / f) for root, _, names in os.walk(inp) for f in names),
                key=lambda s: s.encode("utf-8", "surrogateescape"),
            )
            files = [f for f in files if Path(f).is_file() and not Path(f).is_symlink()]
            for i in range(0, len(files), files_per_shard):
                shards.append(("files", [inp] + files[i : i + files_per_shard]))
        else:
            shards.append(("archive", [inp]))
    return shards


def _fsync_tree(root: str) -> None:
    for dirpath, _, names in os.walk(root):
        for n in names:
            fd = os.open(os.path.join(dirpath, n), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)


def _put_in_place(tmp: str, final: str) -> None:
    """Rename tmp to final; a previous attempt's final is swapped aside first."""
    if os.path.lexists(final):
        old = final + ".old"
        if os.path.lexists(old):
            shutil.rmtree(old) if os.path.isdir(old) else os.remove(old)
        os.rename(final, old)
        os.rename(tmp, final)
        shutil.rmtree(old) if os.path.isdir(old) else os.remove(old)
    else:
        os.rename(tmp, final)


def process_shard(out: str, number: int, kind: str, paths: List[str], options: Dict) -> Dict:
    """Runs on a worker: normalize and audit one shard; returns its counts."""
    import mailcharset

    out_p = Path(out)
    (out_p / "tmp").mkdir(parents=True, exist_ok=True)
    name = f"shard-{number:05d}"
    tmp_dir = tempfile.mkdtemp(prefix=name + ".", dir=out_p / "tmp")
    norm_dir = Path(tmp_dir) / "normalized"
    norm_dir.mkdir()
    audit_tmp = Path(tmp_dir) / "audit.jsonl"
    counts: collections.Counter = collections.Counter()
    messages = 0
    size = 0
    with open(audit_tmp, "w", encoding="utf-8", newline="") as audit_out:
        if kind == "files":
            base, files = paths[0], paths[1:]
            sources = [(f, os.path.relpath(f, base)) for f in files]
        else:
            sources = [(paths[0], os.path.basename(os.path.normpath(paths[0])))]
        for path, rel in sources:
            # A file that does not start like a message (notes, a photo, a
            # gzip-compressed archive) is not mail: kept byte for byte and
            # not audited, as the CLI does (normalize would read it as a
            # message and rewrite it).
            if kind == "files":
                with open(path, "rb") as f:
                    head = f.read(65536)
                if not mailcharset.looks_like_message(head):
                    messages += 1
                    target = norm_dir / rel
                    target.parent.mkdir(parents=True, exist_ok=True)
                    with open(path, "rb") as f:
                        data = f.read()
                    size += len(data)
                    target.write_bytes(data)
                    continue
            msgs = list(mailcharset.read_path(path))
            for m in msgs:
                messages += 1
                size += len(m.bytes)
                r = mailcharset.normalize(m.bytes, **options)
                if kind == "files" and len(msgs) == 1:
                    target = norm_dir / rel  # a message file keeps its name
                else:
                    target = norm_dir / rel / f"{m.index}.eml"
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(r.bytes)
                lines = mailcharset.audit_jsonl(m.bytes, input=m.input, index=m.index)
                audit_out.write(lines)
                for line in lines.splitlines():
                    rec = json.loads(line)
                    counts[(rec.get("label") or "(none)", rec.get("verdict"))] += 1
        audit_out.flush()
        os.fsync(audit_out.fileno())
    _fsync_tree(str(norm_dir))
    (out_p / "normalized").mkdir(exist_ok=True)
    (out_p / "audit").mkdir(exist_ok=True)
    _put_in_place(str(norm_dir), str(out_p / "normalized" / name))
    _put_in_place(str(audit_tmp), str(out_p / "audit" / f"{name}.jsonl"))
    os.rmdir(tmp_dir)
    return {"messages": messages, "bytes": size, "counts": [[l, v, n] for (l, v), n in sorted(counts.items())]}


def write_summary(out: str, results: List[Dict]) -> Dict:
    total: collections.Counter = collections.Counter()
    for r in results:
        for l, v, n in r["counts"]:
            total[(l, v)] += n
    labels: Dict[str, Dict[str, int]] = {}
    for (l, v), n in sorted(total.items()):
        labels.setdefault(l, {})[v] = n
    summary = {
        "shards": len(results),
        "messages": sum(r["messages"] for r in results),
        "bytes": sum(r["bytes"] for r in results),
        "labels": labels,
    }
    fd, tmp = tempfile.mkstemp(prefix="summary.", dir=out)
    with os.fdopen(fd, "w") as f:
        json.dump(summary, f, indent=1, sort_keys=True)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, os.path.join(out, "summary.json"))
    return summary


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--scheduler", help="address of a running Dask scheduler (default: start a LocalCluster)")
    ap.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes")
    ap.add_argument("--files-per-shard", type=int, default=200)
    ap.add_argument("--headers", default="encoded", choices=["encoded", "utf8"])
    ap.add_argument("--on-error", default="replace", choices=["replace", "keep"])
    args = ap.parse_args(argv)

    from dask.distributed import Client, LocalCluster

    options = {"headers": args.headers, "on_error": args.on_error}
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    shards = plan_shards(args.inputs, args.files_per_shard)
    cluster = None
    if args.scheduler:
        client = Client(args.scheduler)
    else:
        cluster = LocalCluster(
            n_workers=args.workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        )
        client = Client(cluster)
    try:
        start = time.monotonic()
        futures = [
            client.submit(process_shard, out, i, kind, paths, options, pure=False, retries=2)
            for i, (kind, paths) in enumerate(shards)
        ]
        results = client.gather(futures)
        elapsed = time.monotonic() - start
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    summary = write_summary(out, results)
    shutil.rmtree(os.path.join(out, "tmp"), ignore_errors=True)
    print(
        json.dumps(
            {
                "shards": len(shards),
                "messages": summary["messages"],
                "bytes": summary["bytes"],
                "seconds": round(elapsed, 3),
                "messages_per_second": round(summary["messages"] / elapsed, 1) if elapsed > 0 else None,
                "workers": args.workers if not args.scheduler else None,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
