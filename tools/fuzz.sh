#!/usr/bin/env bash
# Runs cargo-fuzz targets one after another, each for SECONDS, and prints
# each run's last status line (executions, coverage, corpus size).
#
#   tools/fuzz.sh SECONDS [TARGET...]      (default: every target in fuzz/)
#
# Stable Rust: cargo-fuzz needs -Z flags, so RUSTC_BOOTSTRAP=1 is set.
# Dictionaries in fuzz/dict/<target>.dict are used when present.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
secs=${1:?usage: tools/fuzz.sh SECONDS [TARGET...]}
shift
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(RUSTC_BOOTSTRAP=1 cargo fuzz list)
fi
mkdir -p logs
for t in "${targets[@]}"; do
  # Message-level targets start from the repository's own fixtures.
  if [ ! -d "corpus/$t" ] && [[ "$t" == normalize || "$t" == headers || "$t" == audit ]]; then
    mkdir -p "corpus/$t"
    cp ../fixtures/messages/*.eml "corpus/$t/"
  fi
  dict=()
  [ -f "dict/$t.dict" ] && dict=("-dict=dict/$t.dict")
  echo "== $t ($secs s)"
  RUSTC_BOOTSTRAP=1 cargo fuzz run "$t" -- -max_total_time="$secs" "${dict[@]}" \
    > "logs/$t.log" 2>&1 || { echo "FAILED: see fuzz/logs/$t.log"; tail -30 "logs/$t.log"; }
  grep -E '^#[0-9]+' "logs/$t.log" | tail -1 || true
  grep -E '^Done' "logs/$t.log" || true
done
