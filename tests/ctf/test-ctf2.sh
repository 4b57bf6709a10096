#!/bin/bash
# CTF 2: every trace of babeltrace's CTF 2 suite that has a CTF 1.8 twin
# prints what the twin prints (the twin is checked against babeltrace2 in
# test-bt2-compare.sh; warnings name the stream file, so the paths are
# rewritten); fl-bm prints babeltrace 2.1's pretty golden output; every
# trace of 2/fail fails with the problem named.
. "$(dirname "$0")/../lib.sh"
S2=$PEER/ctf/babeltrace-2.1/ctf-traces/2
cd "$S2/succeed"
for d in */; do
	d=${d%/}
	[ -d "../../1/succeed/$d" ] || continue
	"$TIO" print "$d" >"$TMP/c2" 2>&1; rc2=$?
	"$TIO" print "../../1/succeed/$d" 2>&1 | sed 's|/ctf-traces/1/succeed/|/ctf-traces/2/succeed/|' >"$TMP/c1"
	if [ $rc2 -ne 0 ]; then notok "2/succeed/$d: exit $rc2" "$(head -3 "$TMP/c2")"; continue; fi
	same "2/succeed/$d == its CTF 1.8 twin ($(wc -l <"$TMP/c2") lines)" "$TMP/c1" "$TMP/c2"
done
"$TIO" print fl-bm >"$TMP/flbm" 2>&1
same "2/succeed/fl-bm == babeltrace 2.1 pretty golden" "$PEER/ctf/babeltrace-2.1/plugins/sink.text.pretty/fl-bm-ctf2.expect" "$TMP/flbm"
"$TIO" print meta-clk-cls-before-trace-cls >"$TMP/o" 2>&1 && [ ! -s "$TMP/o" ] && ok "2/succeed/meta-clk-cls-before-trace-cls: no events, exit 0" || notok "2/succeed/meta-clk-cls-before-trace-cls" "$(cat "$TMP/o")"
# 2/fail: exit 1, the message names the file, where (byte offset in the data;
# for the metadata, the file: what is wrong is a missing fragment) and what
# (babeltrace 2.1: "At 0 bits: Invalid empty event record.", "Missing data
# stream class fragment in metadata stream.").  Every trace must be listed.
declare -A fail_msg=(
	[empty-event-record]="empty-event-record/stream@0x0: event record of class 0 is empty (0 bits): cannot advance"
	[meta-no-stream-cls]="meta-no-stream-cls/metadata: no data stream class fragment in the metadata stream"
	[meta-no-trace-cls-no-stream-cls]="meta-no-trace-cls-no-stream-cls/metadata: no data stream class fragment in the metadata stream"
)
for d in ../fail/*/; do
	d=${d%/}
	n=$(basename "$d")
	want=${fail_msg[$n]}
	"$TIO" print "$d" >"$TMP/o" 2>"$TMP/e"; rc=$?
	if [ -z "$want" ]; then
		notok "2/fail/$n: no expected message in this script" "$(head -3 "$TMP/e")"
	elif [ $rc -eq 1 ] && grep -qF -- "traceio: ../fail/$want" "$TMP/e"; then
		ok "2/fail/$n: exit $rc: $(head -1 "$TMP/e" | cut -c1-160)"
	else
		notok "2/fail/$n: exit $rc, expected 1 and '$want'" "$(head -3 "$TMP/e")"
	fi
done
