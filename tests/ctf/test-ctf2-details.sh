#!/bin/bash
# CTF 2 decoded values against babeltrace 2.1's details files: every
# trace-*-ctf2*.expect of the babeltrace suite (sink.text.details output of a
# CTF 2 trace) is compared, message by message and value by value, with
# `traceio print --style json` of the same trace(s) (tests/tools/details-cmp.py
# says what is compared).  Mismatches with a reason are listed in
# tests/ctf/ctf2-details-known.txt; anything else fails, and so does a known
# difference that is no longer seen.
#
# src.ctf.fs/succeed: the CTF 2 traces of ctf-traces/2/succeed.
# sink.ctf.fs/succeed (float, double): babeltrace writes with sink.ctf.fs a
# trace made by a C generator that is not in the peer data; the same trace is
# made here by tests/tools/gen-ctf-real.py (CTF 1.8: checked against the
# ctf1 expect file, and against babeltrace2 2.0.4 when installed), converted
# to CTF 2 by traceio, and read back.
# Also babeltrace's stdout for 2/fail/empty-event-record (what comes before
# its error).  Last line: the totals.
. "$(dirname "$0")/../lib.sh"
BT=$PEER/ctf/babeltrace-2.1
CMP=$TIO_TOP/tests/tools/details-cmp.py
KNOWN=$TIO_TOP/tests/ctf/ctf2-details-known.txt
files=0 events=0 packets=0 values=0 nknown=0

check() { # NAME EXPECT JSON ROOT
	local res
	if res=$(python3 "$CMP" --known "$KNOWN" --name "$1" "$2" "$3" "$4"); then
		ok "details $1: $(tail -1 <<<"$res")"
	else
		notok "details $1" "$res"
	fi
	files=$((files + 1))
	read -r e p v k <<<"$(sed -nE 's/^(MATCH|FAIL) ([0-9]+) events, ([0-9]+) packets, ([0-9]+) values \(([0-9]+) known.*/\2 \3 \4 \5/p' <<<"$res")"
	events=$((events + ${e:-0})) packets=$((packets + ${p:-0})) values=$((values + ${v:-0})) nknown=$((nknown + ${k:-0}))
}

# expect file -> the traces (and options) babeltrace read for it
declare -A src=(
	[trace-2packets-ctf2-mip1.expect]=2packets
	[trace-barectf-event-before-packet-ctf2-mip1.expect]=barectf-event-before-packet
	[trace-session-rotation-ctf2-mip1.expect]=session-rotation
	[trace-lttng-tracefile-rotation-ctf2-mip1.expect]=lttng-tracefile-rotation
	# babeltrace: with force-clock-class-origin-unix-epoch=true (traceio merges
	# traces whatever their clocks' origins)
	[trace-2packets-barectf-event-before-packet-ctf2-mip1.expect]="2packets barectf-event-before-packet"
)
cd "$BT/ctf-traces/2/succeed" || exit 0
for f in "$BT"/plugins/*/succeed/trace-*-ctf2*.expect; do
	name=$(basename "$f")
	case $f in
	*/src.ctf.fs/*)
		traces=${src[$name]}
		if [ -z "$traces" ]; then
			notok "details $name: no trace known for it (add it to this script)"; continue
		fi
		# shellcheck disable=SC2086
		if ! "$TIO" print --style json $traces >"$TMP/out.json" 2>"$TMP/err"; then
			notok "details $name: traceio print failed" "$(head -3 "$TMP/err")"; continue
		fi
		check "$name" "$f" "$TMP/out.json" .
		;;
	*/sink.ctf.fs/*)
		kind=${name#trace-}; kind=${kind%-ctf2.expect}
		case $kind in float|double) ;; *) notok "details $name: no generator for it"; continue;; esac
		w=$TMP/real
		rm -rf "$w"; mkdir -p "$w"
		python3 "$TIO_TOP/tests/tools/gen-ctf-real.py" "$kind" "$w/$kind-1"
		f1=${f%-ctf2.expect}-ctf1.expect
		if command -v babeltrace2 >/dev/null; then
			# the generated CTF 1.8 trace is the generator's: same messages
			babeltrace2 -c sink.text.details -p with-trace-name=no,with-stream-name=no "$w/$kind-1" >"$w/bt" 2>&1
			if diff <(sed -n '/^\[/,$p' "$w/bt") <(sed -n '/^\[/,$p' "$f1") >"$w/diff"; then
				ok "details $kind: babeltrace2 reads the generated CTF 1.8 trace as $(basename "$f1") says"
			else
				notok "details $kind: babeltrace2 on the generated CTF 1.8 trace" "$(head -5 "$w/diff")"
			fi
		fi
		(cd "$w" && "$TIO" print --style json "$kind-1" >"$kind-1.json" &&
		 "$TIO" convert --ctf-version 2 -o "$kind-2" "$kind-1" &&
		 "$TIO" print --style json "$kind-2" >"$kind-2.json") 2>"$TMP/err" ||
			{ notok "details $name: traceio failed" "$(head -3 "$TMP/err")"; continue; }
		check "$(basename "$f1") (generated CTF 1.8)" "$f1" "$w/$kind-1.json" "$w"
		check "$name (generated, converted to CTF 2)" "$f" "$w/$kind-2.json" "$w"
		;;
	esac
done

# 2/fail/empty-event-record: babeltrace's stdout before its error (the packet
# beginning) against what traceio delivers before its own
cd "$BT/ctf-traces/2/fail" || exit 0
"$TIO" print --style json empty-event-record >"$TMP/out.json" 2>"$TMP/err"
rc=$?
if [ $rc -ne 1 ]; then
	notok "details fail/empty-event-record: exit $rc, expected 1" "$(head -3 "$TMP/err")"
else
	check "fail/empty-event-record.expect (messages before the error)" \
		"$BT/plugins/src.ctf.fs/fail/empty-event-record.expect" "$TMP/out.json" .
fi
cd "$BT/ctf-traces/2/succeed" || exit 0

# the comparison can fail: a changed value, a dropped event, a renamed field,
# a changed time, a changed packet context value
E=$BT/plugins/src.ctf.fs/succeed/trace-2packets-ctf2-mip1.expect
"$TIO" print --style json 2packets >"$TMP/good.json"
for mut in 's/"sample-ust"/"sample-usu"/' '2d' 's/"vpid"/"vpie"/' 's/"ns":1561756803923426858/"ns":1561756803923426859/' \
	   's/"cpu_id":2/"cpu_id":3/' 's/"timestamp_end":257963419223089/"timestamp_end":257963419223088/'; do
	sed "$mut" "$TMP/good.json" >"$TMP/bad.json"
	if ! cmp -s "$TMP/good.json" "$TMP/bad.json" &&
	   ! python3 "$CMP" "$E" "$TMP/bad.json" . >/dev/null; then
		ok "details comparison catches a damaged output ($mut)"
	else
		notok "details comparison does not catch a damaged output ($mut)"
	fi
done
echo "details: $files comparisons, $events events, $packets packets, $values values, $nknown known differences"
