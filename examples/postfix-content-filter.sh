#!/bin/sh
# Postfix after-queue content filter (the "simple content filter" of
# Postfix's FILTER_README): pipe(8) runs this script with the sender and the
# recipients; it normalizes the message with `mailcharset filter` and
# re-injects it with sendmail. Setup: doc/gateway.md.
#
#   argv: [-C CONFIG_DIR] SENDER RECIPIENT...
#
# Exit status: 0 when the message was re-injected; 75 (EX_TEMPFAIL) when
# anything failed, so that Postfix defers the message and tries again. It
# never bounces mail for its content: `mailcharset filter` itself gives a
# message it cannot normalize back unchanged.

EX_TEMPFAIL=75
# pipe(8) runs commands with PATH=/usr/bin:/bin: look where
# `cargo install --root /usr/local` puts the binary too.
if [ -z "${MAILCHARSET:-}" ]; then
    MAILCHARSET=$(command -v mailcharset || echo /usr/local/bin/mailcharset)
fi
# Options for `mailcharset filter`, for example "--max-message-size 50M".
MAILCHARSET_OPTS=${MAILCHARSET_OPTS:-}
SENDMAIL=${SENDMAIL:-/usr/sbin/sendmail}

config=""
if [ "$1" = "-C" ]; then
    config="-C $2"
    shift 2
fi
sender=$1
shift
[ $# -gt 0 ] || exit $EX_TEMPFAIL

tmp=$(mktemp "${TMPDIR:-/tmp}/mailcharset-filter.XXXXXX") || exit $EX_TEMPFAIL
trap 'rm -f "$tmp"' EXIT HUP INT TERM

# The whole normalized message first: sendmail must never see half of one.
# shellcheck disable=SC2086
"$MAILCHARSET" filter $MAILCHARSET_OPTS > "$tmp" || exit $EX_TEMPFAIL
# shellcheck disable=SC2086
"$SENDMAIL" $config -G -i -f "$sender" -- "$@" < "$tmp" || exit $EX_TEMPFAIL
exit 0
