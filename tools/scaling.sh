#!/bin/sh
# Two cores against one: normalizes MBOX with `--jobs 1` pinned to one core
# (taskset -c 0) and with `--jobs 2`, alternating, RUNS times each; prints
# every wall time and the ratio of the medians. Output goes to /dev/null so
# the disk is out of it.
#
#   python3 tools/make_big_mbox.py /tmp/big.mbox 1024
#   cargo build --release && tools/scaling.sh /tmp/big.mbox 7
set -eu
mbox=${1:?usage: tools/scaling.sh MBOX [RUNS]}
runs=${2:-7}
bin=${BIN:-target/release/mailcharset}
t1=""; t2=""
i=0
while [ "$i" -lt "$runs" ]; do
    a=$( { /usr/bin/time -f %e taskset -c 0 "$bin" normalize --jobs 1 -q "$mbox" >/dev/null; } 2>&1 | tail -n 1)
    b=$( { /usr/bin/time -f %e "$bin" normalize --jobs 2 -q "$mbox" >/dev/null; } 2>&1 | tail -n 1)
    echo "run $((i + 1)): jobs 1 (one core) ${a} s, jobs 2 ${b} s"
    t1="$t1 $a"; t2="$t2 $b"
    i=$((i + 1))
done
python3 - "$t1" "$t2" <<'PY'
import statistics, sys
one = [float(x) for x in sys.argv[1].split()]
two = [float(x) for x in sys.argv[2].split()]
m1, m2 = statistics.median(one), statistics.median(two)
print(f"median: jobs 1 {m1:.2f} s, jobs 2 {m2:.2f} s, ratio {m1 / m2:.2f}x "
      f"(best against best {min(one) / min(two):.2f}x)")
PY
