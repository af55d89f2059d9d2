"""examples/dask_normalize.py's shard function, without a cluster: output in
place only whole, a retry writes the same bytes, and matches the API."""

import json
import sys
from pathlib import Path

import mailcharset

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples"))

import dask_normalize  # noqa: E402

OPTS = {"headers": "encoded", "on_error": "replace"}


def _tree(d):
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def test_shard_retry_is_byte_identical_and_replaces_a_stale_attempt(tmp_path):
    src = ROOT / "fixtures" / "messages"
    shards = dask_normalize.plan_shards([str(src), str(ROOT / "fixtures" / "mailbox" / "mboxrd.mbox")], 10)
    assert [k for k, _ in shards].count("archive") == 1 and len(shards) >= 3
    out = tmp_path / "out"
    results = [dask_normalize.process_shard(str(out), i, k, p, OPTS) for i, (k, p) in enumerate(shards)]
    first = _tree(out)
    assert not any(k.startswith("tmp/") and not k.endswith("/") for k in first)
    # A killed attempt left a half-written temporary, and the final of shard 1
    # was damaged: the retry puts whole, identical output in place.
    (out / "tmp" / "shard-00001.xyz").mkdir(parents=True)
    (out / "tmp" / "shard-00001.xyz" / "audit.jsonl").write_bytes(b'{"half')
    (out / "audit" / "shard-00001.jsonl").write_bytes(b"garbage")
    k, p = shards[1]
    dask_normalize.process_shard(str(out), 1, k, p, OPTS)
    again = {n: b for n, b in _tree(out).items() if not n.startswith("tmp/")}
    assert again == {n: b for n, b in first.items() if not n.startswith("tmp/")}
    # The normalized files are the API's output, the audit lines the API's records.
    for f in sorted(src.glob("*.eml")):
        hits = [b for n, b in first.items() if n.startswith("normalized/") and n.endswith("/" + f.name)]
        assert hits == [mailcharset.normalize(f.read_bytes()).bytes], f
    records = [json.loads(l) for n, b in first.items() if n.startswith("audit/") for l in b.splitlines()]
    # A file that is not mail (EXPECT.tsv) is kept byte for byte and not
    # audited, as the CLI does (it was read as a message: header fields
    # inserted, its text re-encoded).
    expect = src / "EXPECT.tsv"
    assert not mailcharset.looks_like_message(expect.read_bytes())
    kept = [b for n, b in first.items() if n.startswith("normalized/") and n.endswith("/EXPECT.tsv")]
    assert kept == [expect.read_bytes()]
    assert not any(r["input"].endswith("EXPECT.tsv") for r in records)
    # Every file of the folder (EXPECT.tsv too, kept as it is) and each mbox message.
    mbox = list(mailcharset.read_mbox(ROOT / "fixtures" / "mailbox" / "mboxrd.mbox"))
    assert sum(r["messages"] for r in results) == len([f for f in src.iterdir() if f.is_file()]) + len(mbox)
    summary = dask_normalize.write_summary(str(out), results)
    assert sum(sum(v.values()) for v in summary["labels"].values()) == len(records)
