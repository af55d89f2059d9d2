#!/usr/bin/env python3
"""Compare the audit records of two mailcharset binaries over the same inputs.

    tools/verdict_diff.py OLD_BINARY NEW_BINARY INPUT...

Runs `audit --format jsonl` with each, pairs the records (input, index,
part, location, order) and prints, per corpus folder, how many records
changed verdict or charset, as "old -> new" classes with a count and one
example each. Used for the table in doc/charset-decision.md.
"""
import collections, json, subprocess, sys

def records(binary, inputs):
    out = subprocess.run([binary, "audit", "--format", "jsonl", "-q", *inputs],
                         capture_output=True, check=False).stdout
    seen = collections.Counter()
    recs = {}
    for line in out.decode("utf-8", "replace").splitlines():
        r = json.loads(line)
        key = (r["input"], r["index"], r["part"], r["location"])
        seen[key] += 1
        recs[key + (seen[key],)] = r
    return recs

def main():
    old_bin, new_bin, *inputs = sys.argv[1:]
    for inp in inputs:
        old, new = records(old_bin, [inp]), records(new_bin, [inp])
        classes = collections.Counter()
        example = {}
        for k, o in old.items():
            n = new.get(k)
            if n is None:
                continue
            if (o["verdict"], cs(o)) != (n["verdict"], cs(n)):
                c = f'{o["verdict"]} ({cs(o)}) -> {n["verdict"]} ({cs(n)})'
                classes[c] += 1
                example.setdefault(c, f'{k[0].split("/")[-1]} {k[3]}')
        added = len(set(new) - set(old))
        print(f"## {inp}: {len(old)} records, {sum(classes.values())} changed, {added} new")
        for c, n in classes.most_common():
            print(f"  {n:5}  {c}   e.g. {example[c]}")

def cs(r):
    d = r.get("detected") or {}
    if r["verdict"] == "mislabeled" and d.get("charset"):
        return "read as " + d["charset"]
    return r.get("charset") or "-"

main()
