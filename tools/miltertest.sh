#!/bin/sh
# `mailcharset milter` under miltertest(8), a second milter client
# independent of Postfix (issue 16): tools/miltertest.lua, over TCP and
# over a Unix socket, then checks the milter's log names each queue id.
# Installs miltertest with apt-get when it is missing (needs root then).
#
#   tools/miltertest.sh [PATH-TO-mailcharset]
set -eu
cd "$(dirname "$0")/.."
bin=${1:-target/release/mailcharset}
if ! command -v miltertest >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq miltertest >/dev/null
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/mailcharset-mt.XXXXXX")
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
for listen in "inet:127.0.0.1:$port" "unix:$dir/milter.sock"; do
    case $listen in
        inet:*) sock="inet:$port@127.0.0.1" ;;
        unix:*) sock=$listen ;;
    esac
    "$bin" milter --listen "$listen" --max-message-size 1K 2>"$dir/log" &
    pid=$!
    MILTER_SOCK=$sock miltertest -s tools/miltertest.lua >"$dir/out" 2>&1 || {
        cat "$dir/out" "$dir/log"; echo "miltertest: FAILED over $listen"; exit 1; }
    # The milter logs a message when its session ends, which may be after
    # miltertest has returned: wait for the four lines (up to 20 s) before
    # stopping it, or a loaded machine stops it before the last is written.
    for q in MTQ1 MTQ2 MTQ3 MTQ4; do
        tries=0
        until grep -q "^mailcharset milter: $q" "$dir/log"; do
            tries=$((tries + 1))
            [ "$tries" -le 200 ] || {
                cat "$dir/log"; echo "miltertest: no log line for $q over $listen"; exit 1; }
            sleep 0.1
        done
    done
    kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
    echo "miltertest over $listen: $(grep -c '^ok ' "$dir/out") checks passed"
done
