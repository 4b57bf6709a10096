#!/bin/bash
# Real LTTng-UST traces recorded now with ../shared/tools/make-lttng.sh (per-UID
# and per-PID buffers, contexts, two channels, discard and overwrite modes,
# snapshot), printed by traceio and babeltrace2: same stdout, same warnings,
# except where babeltrace2 2.0.4 prints a stale value for an empty string
# (tests/tools/cmp-bt2.py checks that nothing else differs).
# Skips (with a "# skip" ok line) where LTTng cannot record here.
. "$(dirname "$0")/../lib.sh"
if ! command -v lttng >/dev/null || ! command -v lttng-sessiond >/dev/null ||
	! dpkg -s liblttng-ust-dev >/dev/null 2>&1 || [ "$(id -u)" != 0 ]; then
	ok "lttng recordings # skip: lttng-tools/liblttng-ust-dev not installed or not root"
	exit 0
fi
if is_sanitized; then
	# the sanitized build reads the same traces; recording twice buys nothing
	ok "lttng recordings # skip: done by the normal build"
	exit 0
fi
out=$TMP/lttng
if ! SKIP_BIG=1 bash "$TIO_SHARED/tools/make-lttng.sh" "$out" >"$TMP/rec.log" 2>&1; then
	notok "make-lttng.sh records" "$(tail -5 "$TMP/rec.log")"
	exit 0
fi
cd "$out"
for t in ust-*-small bt2-rewritten-ctx; do
	[ -d "$t" ] || continue
	for opts in "" "--no-delta --clock-cycles" "--clock-gmt --clock-date --clock-seconds -n all -f all"; do
		babeltrace2 $opts "$t" >"$TMP/bt.out" 2>"$TMP/bt.err"
		"$TIO" print $opts "$t" >"$TMP/tio.out" 2>"$TMP/tio.err"
		rc=$?
		grep '^WARNING: Tracer' "$TMP/bt.err" >"$TMP/bt.warn"
		grep '^WARNING: Tracer' "$TMP/tio.err" >"$TMP/tio.warn"
		name="$t ${opts:-(default)}"
		if [ $rc -ne 0 ]; then
			notok "$name: exit $rc" "$(head -3 "$TMP/tio.err")"
		elif ! python3 "$TIO_TOP/tests/tools/cmp-bt2.py" "$TMP/bt.out" "$TMP/tio.out" >"$TMP/cmp"; then
			notok "$name" "$(cat "$TMP/cmp")"
		elif ! cmp -s "$TMP/bt.warn" "$TMP/tio.warn"; then
			notok "$name (warnings)" "$(diff "$TMP/bt.warn" "$TMP/tio.warn" | head -6)"
		else
			ok "$name: $(wc -l <"$TMP/tio.out") lines, $(cat "$TMP/cmp")"
		fi
	done
done
