#!/usr/bin/env bash
# CI for the Python package (called from .ci/run): build the abi3 wheel once,
# install it into a fresh virtual environment with pytest, Dask and dkimpy
# (the DKIM oracle), run the pytest suite (exit 5, "no tests collected", is a
# failure), then the loopback Dask cluster check against the CLI.
#
# Needs python3 (3.9+) with venv, and network access to PyPI. The cluster check
# runs the whole linux-mips corpus (4375 messages, a few seconds per run);
# CLUSTER_LIMIT=N uses its first N files only, or
# generated messages when ../shared/corpus is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
target=${CARGO_TARGET_DIR:-$root/target}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 -m venv "$work/venv"
py=$work/venv/bin/python
"$py" -m pip install -q --upgrade pip
"$py" -m pip install -q 'maturin>=1.5,<2' pytest 'dask[distributed]' 'dkimpy>=1.1' cryptography

# The CLI the tests compare with (the root crate, release build).
cargo build --release --bin mailcharset
cli=$target/release/mailcharset

(cd python && CARGO_TARGET_DIR=$target/python "$work/venv/bin/maturin" build --release -o "$work/wheels")
"$py" -m pip install -q "$work"/wheels/mailcharset-*.whl

# Outside the source tree, so `import mailcharset` is the installed wheel.
cd "$work"
set +e
MAILCHARSET_BIN=$cli "$py" -m pytest -q -p no:cacheprovider "$root/python/tests"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
    echo "python/ci.sh: pytest collected no tests" >&2
    exit 1
elif [ "$rc" -ne 0 ]; then
    exit "$rc"
fi

"$py" "$root/python/tests/cluster_check.py" --cli "$cli" --limit "${CLUSTER_LIMIT:-0}"
