#!/bin/bash
# The programs of examples/, built on the public API alone (include/traceio/).
#
# example-json-print must print what `traceio print --style json` prints,
# byte for byte, with the same exit status, on every trace below (one "ok"
# line per group with its counts): babeltrace 2.1's CTF 1.8 and CTF 2
# succeed traces, yactfr's pass-* cases (their dirs hold
# expected-yactfr-elements.txt too, which is opened as a stream either way:
# errors included, the output must be the same), tests/data, the trace.dat
# samples and their trace-cmd conversions, the LTTng 0.x traces.
#
# example-one-field (the complete example of docs/API.md) must print one
# line per event of its class with the field's value.
. "$(dirname "$0")/../lib.sh"
EX=$TIO_BUILD/example-json-print
ONE=$TIO_BUILD/example-one-field

# group NAME TRACE...: compare the two on each TRACE (A|B: two inputs at once)
group() {
	local name=$1 n=0 clean=0 errs=0 events=0 bad=() t in
	shift
	for t in "$@"; do
		IFS='|' read -ra in <<<"$t"
		[ -e "${in[0]}" ] || continue
		n=$((n + 1))
		timeout 300 "$TIO" print --style json "${in[@]}" >"$TMP/cli.json" 2>"$TMP/cli.err"
		local rc1=$?
		timeout 300 "$EX" "${in[@]}" >"$TMP/ex.json" 2>"$TMP/ex.err"
		local rc2=$?
		if [ $rc1 -ne $rc2 ] || ! cmp -s "$TMP/cli.json" "$TMP/ex.json"; then
			bad+=("$t: exit $rc1 (print) vs $rc2 (example)"
			      "$(diff "$TMP/cli.json" "$TMP/ex.json" | head -4 | cut -c1-300)")
			continue
		fi
		[ $rc1 -eq 0 ] && clean=$((clean + 1)) || errs=$((errs + 1))
		events=$((events + $(grep -c '^{"type":"event"' "$TMP/cli.json")))
	done
	if [ $n -eq 0 ]; then
		notok "json-print $name: no trace found"
	elif [ ${#bad[@]} -eq 0 ]; then
		ok "json-print $name: $n/$n traces identical ($clean read cleanly, $errs with errors, same output and status), $events events"
	else
		notok "json-print $name: $((${#bad[@]} / 2))/$n differ" "${bad[@]}"
	fi
}

if [ ! -x "$EX" ]; then
	notok "example-json-print: not built in $TIO_BUILD"
else
	B=$PEER/ctf/babeltrace-2.1/ctf-traces
	group "babeltrace CTF 1.8 succeed" "$B"/1/succeed/*/
	group "babeltrace CTF 2 succeed" "$B"/2/succeed/*/
	Y=$PEER/ctf/yactfr-iter-data
	for d in ctf-1 ctf-2 ctf-2-auto-translated; do
		group "yactfr $d pass-*" "$Y/$d"/pass-*/
	done
	group "tests/data/ctf" "$TIO_TOP"/tests/data/ctf/*/
	group "tests/data/ftrace" "$TIO_TOP"/tests/data/ftrace/*.dat
	group "trace.dat samples" "$PEER"/tracedat/samples/*.dat
	group "trace.dat converted by trace-cmd" "$PEER"/tracedat/converted-by-trace-cmd-3.1.6/*.dat
	group "LTTng 0.x" "$PEER"/ltt0x/traces/*/
	# the rarer value paths (the traces above have no invalid UTF-8, no unnamed option...)
	python3 "$TIO_TOP/tests/api/mk-json-cases.py" "$TMP/cases"
	"$TIO" print --style json "$TMP/cases" >"$TMP/cases.json" 2>&1
	fffd=$(printf '\357\277\275')
	if grep -q '"option":1,' "$TMP/cases.json" && grep -qF '\u0001' "$TMP/cases.json" &&
	   grep -qF "\"s16\":\"A${fffd}B" "$TMP/cases.json" && grep -qF '"bigbe":"0xabcdef0123456789abcdef01"' "$TMP/cases.json"; then
		ok "hand-made CTF 2 cases: unnamed option, escapes, U+FFFD, wide integers in the output"
	else
		notok "hand-made CTF 2 cases: not what the printer should meet" "$(head -c 600 "$TMP/cases.json")"
	fi
	group "hand-made CTF 2 (invalid UTF-8, surrogates, unnamed options, wide integers)" "$TMP/cases"
	# several inputs merged, as `print A B` does
	D=$TIO_TOP/tests/data
	group "several inputs at once" "$D/ctf/wk-heartbeat-u|$D/ctf/lttng-ust-discard" \
		"$D/ftrace/funcs-v6.dat|$D/ftrace/kvm-v7-zstd.dat" "$D/ctf/wk-heartbeat-u|$D/ctf/wk-heartbeat-u"
fi

# one-field: "NS VALUE" for every event of the class, as the JSON output has them
one() { # TRACE EVENT FIELD JSON_SCOPE JSON_MEMBER
	if [ ! -x "$ONE" ]; then
		notok "one-field $2 $3: example-one-field not built in $TIO_BUILD"
		return
	fi
	"$ONE" "$1" "$2" "$3" >"$TMP/one.txt" 2>"$TMP/one.err"
	local rc=$?
	"$TIO" print --style json "$1" 2>/dev/null | python3 -c '
import json, sys
ev, scope, member = sys.argv[1:]
for line in sys.stdin:
    o = json.loads(line)
    if o["type"] == "event" and o["event_class"] == ev:
        print(o.get("ns", 0), o[scope][member])' "$2" "$4" "$5" >"$TMP/one.want"
	local n=$(wc -l <"$TMP/one.want")
	if [ $rc -eq 0 ] && [ "$n" -gt 0 ] && cmp -s "$TMP/one.want" "$TMP/one.txt"; then
		ok "one-field $(basename "$1") $2 $3: $n events, values as print --style json has them"
	else
		notok "one-field $(basename "$1") $2 $3: exit $rc, $n events expected" \
			"$(diff "$TMP/one.want" "$TMP/one.txt" | head -5)" "$(head -3 "$TMP/one.err")"
	fi
}
D=$TIO_TOP/tests/data
one "$D/ctf/lttng-ust-discard" corpus:ints payload.u64 payload u64
one "$D/ctf/lttng-ust-discard" corpus:ints s64 payload s64
one "$D/ctf/lttng-ust-discard" corpus:strings payload.const_str payload const_str
one "$D/ftrace/kvm-v7-zstd.dat" kvm_exit common_pid common_context common_pid
# a field the class lacks: an error naming it, exit 1
"$ONE" "$D/ctf/lttng-ust-discard" corpus:ints payload.nope >"$TMP/one.txt" 2>"$TMP/one.err"
rc=$?
if [ $rc -eq 1 ] && grep -q "no field 'payload.nope'" "$TMP/one.err"; then
	ok "one-field: a field the class lacks is an error naming it"
else
	notok "one-field: a field the class lacks: exit $rc" "$(head -3 "$TMP/one.err")"
fi

# docs/API.md's complete example is examples/one-field.c, as it is
awk '/^<!-- examples\/one-field.c/ {f = 1} f && /^```c$/ {p = 1; next} p && /^```$/ {exit} p' \
	"$TIO_TOP/docs/API.md" >"$TMP/doc.c"
if [ -s "$TMP/doc.c" ] && cmp -s "$TMP/doc.c" "$TIO_TOP/examples/one-field.c"; then
	ok "docs/API.md's complete example is examples/one-field.c"
else
	notok "docs/API.md's complete example differs from examples/one-field.c" \
		"$(diff "$TMP/doc.c" "$TIO_TOP/examples/one-field.c" | head -5)"
fi
