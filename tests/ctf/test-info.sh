#!/bin/bash
# traceio info: counts that can be checked against babeltrace2's own output.
. "$(dirname "$0")/../lib.sh"
S=$PEER/ctf/babeltrace-2.1/ctf-traces/1/succeed
for t in wk-heartbeat-u multi-domains lttng-tracefile-rotation sequence; do
	"$TIO" info --count "$S/$t" >"$TMP/info" 2>&1 || { notok "info $t: exit $?" "$(cat "$TMP/info")"; continue; }
	got=$(awk '/^  events:/ {s += $2} END {print s}' "$TMP/info")
	want=$(babeltrace2 "$S/$t" 2>/dev/null | wc -l)
	[ "$got" = "$want" ] && ok "info $t: $got events, as many lines as babeltrace2 prints" ||
		notok "info $t: $got events, babeltrace2 prints $want" "$(head -20 "$TMP/info")"
	# per-class counts add up to the total
	sum=$(awk '/^ +[0-9]+  .*\(id [0-9]+\)$/ {s += $1} END {print s}' "$TMP/info")
	[ "$sum" = "$got" ] && ok "info $t: event class counts add up" || notok "info $t: classes $sum != $got"
done
"$TIO" info --count "$S/multi-domains" >"$TMP/info" 2>&1
disc=$(babeltrace2 "$S/multi-domains" 2>&1 >/dev/null | awk '/Tracer discarded/ {s += $4} END {print s}')
grep -q "discarded events: $disc\$" "$TMP/info" && ok "info multi-domains: $disc discarded events, as babeltrace2 warns" ||
	notok "info multi-domains: discarded events" "$(grep discarded "$TMP/info")" "babeltrace2: $disc"
