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
for d in ../fail/*/; do
	d=${d%/}
	"$TIO" print "$d" >"$TMP/o" 2>"$TMP/e"; rc=$?
	if [ $rc -ne 0 ] && grep -q "$(basename "$d")" "$TMP/e"; then
		ok "2/fail/$(basename "$d"): exit $rc: $(head -1 "$TMP/e" | cut -c1-160)"
	else
		notok "2/fail/$(basename "$d"): exit $rc" "$(head -3 "$TMP/e")"
	fi
done
