#!/bin/sh
# Process-level speed, one run of each side by side (issue 18): mail-parser
# 0.11 parsing an mbox and decoding every text part
# (examples/mail_parser_mbox.rs) against `mailcharset normalize --jobs 1`
# and `mailcharset audit --jobs 1 --format jsonl` on the same file; best of
# RUNS wall times each, with peak RSS, and the ratios. Output goes to
# /dev/null (normalize: an mbox under /tmp, since -o names a file).
#
#   tools/process_bench.sh [MBOX] [RUNS]
#
# With MIMALLOC=1, also the binary built with the `mimalloc` feature (in
# target/mimalloc): the rows normalize-mi and audit-mi.
# Without MBOX, builds /tmp/mailcharset-mips4.mbox: four copies of the
# linux-mips slice of ../shared/corpus (112 MB) with tools/make_big_mbox.py.
set -eu
cd "$(dirname "$0")/.."
mbox=${1:-/tmp/mailcharset-mips4.mbox}
runs=${2:-3}
if [ ! -f "$mbox" ]; then
    python3 tools/make_big_mbox.py "$mbox" 107 >/dev/null
fi
cargo build -q --release --example mail_parser_mbox
cargo build -q --release
bin=target/release/mailcharset
mi=""
if [ "${MIMALLOC:-0}" = 1 ]; then
    cargo build -q --release --features mimalloc --target-dir target/mimalloc
    mi=target/mimalloc/release/mailcharset
fi
out=$(mktemp /tmp/mailcharset-bench.XXXXXX)
trap 'rm -f "$out"' EXIT
# Wall time from the clock in nanoseconds around the run (GNU time's %e
# counts hundredths: 0.09 s against 0.10 s was the audit ratio's 4.2x
# against 3.8x), peak RSS from GNU time.
best() { # label command...: the best wall time and its peak RSS
    label=$1; shift
    b=""
    i=0
    while [ "$i" -lt "$runs" ]; do
        t0=$(date +%s%N)
        m=$( { /usr/bin/time -f "%M" "$@" >/dev/null; } 2>&1 | tail -n 1)
        t1=$(date +%s%N)
        t=$(awk -v a="$t0" -v z="$t1" -v m="$m" 'BEGIN { printf "%.4f %s\n", (z - a) / 1e9, m }')
        b=$(printf '%s\n%s\n' "$b" "$t" | awk 'NF' | sort -n | head -n 1)
        i=$((i + 1))
    done
    echo "$label $b"
}
{
    best mail-parser target/release/examples/mail_parser_mbox "$mbox"
    best normalize "$bin" normalize --jobs 1 -q "$mbox" -o "$out"
    best audit "$bin" audit --jobs 1 --format jsonl "$mbox"
    if [ -n "$mi" ]; then
        best normalize-mi "$mi" normalize --jobs 1 -q "$mbox" -o "$out"
        best audit-mi "$mi" audit --jobs 1 --format jsonl "$mbox"
    fi
} | awk -v size="$(wc -c < "$mbox")" '
    { t[$1] = $2; printf "%-12s %6.3f s %7.0f MB/s  peak RSS %4.0f MiB\n", $1, $2, size / $2 / 1e6, $3 / 1024 }
    END {
        printf "normalize %.2fx mail-parser, audit %.2fx mail-parser\n", t["mail-parser"] / t["normalize"], t["mail-parser"] / t["audit"]
        if ("audit-mi" in t) printf "with mimalloc: normalize %.2fx, audit %.2fx\n", t["mail-parser"] / t["normalize-mi"], t["mail-parser"] / t["audit-mi"]
    }'
