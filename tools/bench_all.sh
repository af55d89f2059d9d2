#!/bin/sh
# Every figure of BENCHMARKS.md in one run: the criterion benches (each
# prints its ratios, read back from criterion's estimates of this run), the
# process-level comparison with mail-parser over a 112 MB mbox
# (tools/process_bench.sh), and the 1 GiB mbox on two workers.
#
#   tools/bench_all.sh [OUTDIR]        (default /tmp/mailcharset-bench)
#
# Each bench's full output goes to OUTDIR/<name>.log; the lines the table
# is written from (criterion's throughput, the ratio lines, the process
# timings) are gathered in OUTDIR/summary.txt and printed at the end. Run it
# on a quiet machine: about 25 minutes on 2 cores. The inputs are built when
# absent (tools/make_big_mbox.py: /tmp/mailcharset-mips4.mbox, 112 MB, and
# /tmp/mailcharset-big.mbox, 1 GiB); the linux-mips messages come from
# ../shared/corpus, and the benches that read them say so and skip without it.
set -eu
cd "$(dirname "$0")/.."
out=${1:-/tmp/mailcharset-bench}
mkdir -p "$out"
summary=$out/summary.txt
{
    echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
    echo "date $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "cpu $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
    rustc --version
} > "$summary"
for bench in codec charset headers transfer normalize audit; do
    echo "== cargo bench --bench $bench" | tee -a "$summary"
    cargo bench --bench "$bench" -- --warm-up-time 1 --measurement-time 3 > "$out/$bench.log" 2>&1
    # A group's name line, then its functions' throughput; then the ratios.
    awk '/^[^ ]/ && !/^(ratio|min-ratio|Benchmarking|Found|Warning|note) / { name = $1 }
         /thrpt:/ && !/%/ { print name, $0 } /^(ratio|min-ratio) / { print }' \
        "$out/$bench.log" | sed 's/  */ /g' >> "$summary"
done
big=/tmp/mailcharset-big.mbox
[ -f "$big" ] || python3 tools/make_big_mbox.py "$big" 1024 > /dev/null
echo "== tools/process_bench.sh /tmp/mailcharset-mips4.mbox 5" | tee -a "$summary"
tools/process_bench.sh /tmp/mailcharset-mips4.mbox 5 >> "$summary" 2>&1
bin=target/release/mailcharset
best() { # label command...: the best of five wall times (the clock in
    # nanoseconds around the run; GNU time's %e counts hundredths) and its
    # peak RSS
    label=$1; shift
    for _ in 1 2 3 4 5; do
        t0=$(date +%s%N)
        m=$( { /usr/bin/time -f "%M" "$@" > /dev/null; } 2>&1 | tail -n 1)
        t1=$(date +%s%N)
        awk -v a="$t0" -v z="$t1" -v m="$m" 'BEGIN { printf "%.4f %s\n", (z - a) / 1e9, m }'
    done | sort -n | head -n 1 | awk -v l="$label" '{ printf "%-34s %6.3f s  peak RSS %4.0f MiB\n", l, $1, $2 / 1024 }'
}
echo "== one worker into /dev/null, and two workers on 1 GiB (best of 5)" | tee -a "$summary"
best "normalize --jobs 1 112 MB /dev/null" "$bin" normalize --jobs 1 -q /tmp/mailcharset-mips4.mbox -o /dev/null >> "$summary"
best "normalize --jobs 2 1 GiB /dev/null" "$bin" normalize --jobs 2 -q "$big" -o /dev/null >> "$summary"
best "audit --jobs 2 1 GiB jsonl" "$bin" audit --jobs 2 --format jsonl "$big" >> "$summary"
cat "$summary"
