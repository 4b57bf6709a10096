#!/bin/bash
# Every trace of babeltrace's fail corpora (CTF 1.8 and CTF 2) makes
# `traceio print` and `traceio check` exit non-zero with the problem named:
# the file, where in it (byte offset or metadata line:column) and what.
. "$(dirname "$0")/../lib.sh"
F=$PEER/ctf/babeltrace-2.1/ctf-traces
# trace dir | the message: FILE then @OFFSET (binary data) or :LINE:COL (TSDL),
# then the field path and what is wrong with the values found, all on one line
# of the output (a trace may be listed several times: every message checked).
# Only the two CTF 2 traces without a data stream class fragment have no
# location finer than the file: what is wrong is an absence.
while IFS='|' read -r t msg; do
	[ -n "$t" ] || continue
	d=$F/$t
	if [ ! -d "$d" ]; then notok "fail $t" "missing $d"; continue; fi
	for cmd in print check; do
		timeout 60 "$TIO" $cmd "$d" >"$TMP/out" 2>"$TMP/err"
		rc=$?
		cat "$TMP/out" "$TMP/err" >"$TMP/all"
		if [ $rc -eq 0 ] || [ $rc -ge 124 ]; then
			notok "fail $t: $cmd exits 1" "exit $rc" "$(head -3 "$TMP/all")"
		elif ! grep -qF -- "$d/$msg" "$TMP/all"; then
			notok "fail $t: $cmd says '$msg'" "$(head -3 "$TMP/all")"
		else
			ok "fail $t: $cmd: ${msg:0:60}"
		fi
	done
done <<'LIST'
1/fail/fail1|metadata:14:1: unsupported CTF version 0.1 in the trace block (expected 1.8)
1/fail/fail2|metadata:9:16: unknown escape sequence '\o'
1/fail/incomplete-packet-header|stream@0x4: event.payload.lel: string not terminated within the packet content
1/fail/incomplete-packet-header|stream@0xa: packet.context.packet_size: cannot read 16 bits: 8 bits left in the packet content
1/fail/integer-range|metadata:7:10: integer constant 23452397856348975623897562893746589237465289374658923764598237645897234658723648579236 is out of range (more than 64 bits)
1/fail/invalid-packet-size|trace/channel0_3@0x0: packet.context: invalid packet size 32768 bits / content size 20264 bits (20264 bits left in the file, 0 in the headers)
1/fail/invalid-sequence-length-field-class|metadata:23:12: Sequence field class's length field class is not an unsigned integer field class (length `len` in event.fields of event `ze_event`)
1/fail/invalid-variant-selector-field-class|metadata:23:11: Variant field class's tag field class is not an enumeration field class (tag `selector` in event.fields of event `ze_event`)
1/fail/lttng-modules-2.0-pre1|metadata@0x0: unsupported metadata packet version 116.121 (expected 1.8)
1/fail/metadata-syntax-error|metadata:3:58: syntax error: expected an attribute name or '}', got ']'
1/fail/packet-based-metadata|metadata@0x0: unsupported metadata packet version 116.121 (expected 1.8)
1/fail/smalltrace|metadata:5:1: unsupported CTF version 0.1 in the trace block (expected 1.8)
1/fail/valid-events-then-invalid-events|trace/dummystream@0x2: event.header: no event class with id 255 in stream class 0
2/fail/empty-event-record|stream@0x0: event record of class 0 is empty (0 bits): cannot advance
2/fail/meta-no-stream-cls|metadata: no data stream class fragment in the metadata stream
2/fail/meta-no-trace-cls-no-stream-cls|metadata: no data stream class fragment in the metadata stream
LIST
# every fail trace is listed above
n=$(ls -d "$F"/1/fail/* "$F"/2/fail/* | wc -l)
[ "$n" -eq 15 ] && ok "fail corpora: 15 traces" || notok "fail corpora: $n traces, 15 listed"
# the good events before the damage are still printed
"$TIO" print "$F/1/fail/valid-events-then-invalid-events" >"$TMP/out" 2>/dev/null
[ "$(wc -l <"$TMP/out")" -eq 2 ] && ok "valid-events-then-invalid-events: 2 good events printed" ||
	notok "valid-events-then-invalid-events: 2 good events printed" "$(cat "$TMP/out")"
# one damaged packet (magic) of a 4-stream trace (1000 events per stream): that packet
# only is lost, and the exit status says so; --strict stops at the first error
cp -r "$F/1/succeed/trace-with-index" "$TMP/t" && chmod -R u+w "$TMP/t"
printf '\xff\xff\xff\xff' | dd of="$TMP/t/ust_channel_0" bs=1 seek=4096 conv=notrunc 2>/dev/null
"$TIO" print "$TMP/t" >"$TMP/all" 2>"$TMP/err"; rc=$?
"$TIO" print --strict "$TMP/t" >"$TMP/strict" 2>"$TMP/serr"; src=$?
"$TIO" print "$F/1/succeed/trace-with-index" >"$TMP/good" 2>/dev/null
lost=$(($(wc -l <"$TMP/good") - $(wc -l <"$TMP/all")))
if [ $rc -eq 1 ] && grep -qF 'ust_channel_0@0x1000: packet.header.magic: 0xffffffff is not the CTF magic 0xc1fc1fc1' "$TMP/err" && [ $lost -gt 0 ] && [ $lost -lt 500 ]; then
	ok "damaged packet reported and skipped, $lost of $(wc -l <"$TMP/good") events lost"
else
	notok "damaged packet reported and skipped" "exit $rc, lost $lost" "$(head -3 "$TMP/err")"
fi
if [ $src -eq 1 ] && [ "$(wc -l <"$TMP/serr")" -eq 1 ] && [ "$(wc -l <"$TMP/strict")" -lt "$(wc -l <"$TMP/all")" ]; then
	ok "--strict stops at the first error"
else
	notok "--strict stops at the first error" "exit $src, $(wc -l <"$TMP/strict") lines" "$(head -3 "$TMP/serr")"
fi
# check: clean traces of each format exit 0
for t in "$F/1/succeed/trace-with-index" "$F/2/succeed/trace-with-index" \
	"$PEER/tracedat/converted-by-trace-cmd-3.1.6/igt-tests-trace-x86_64-i915-v7-zstd.dat" \
	"$PEER/ltt0x/traces/trace-15316events_nolost_newformat"; do
	if "$TIO" check "$t" >"$TMP/out" 2>&1 && grep -q ', ok$' "$TMP/out"; then
		ok "check clean: $(basename "$t")"
	else
		notok "check clean: $(basename "$t")" "$(head -5 "$TMP/out")"
	fi
done
# check lists every problem: two damaged packets in two files, both listed, reading goes on
cp -r "$F/1/succeed/trace-with-index" "$TMP/t2" && chmod -R u+w "$TMP/t2"
printf '\xff' | dd of="$TMP/t2/ust_channel_1" bs=1 seek=0 conv=notrunc 2>/dev/null
printf '\xff\xff\xff\xff' | dd of="$TMP/t2/ust_channel_3" bs=1 seek=8192 conv=notrunc 2>/dev/null
"$TIO" check "$TMP/t2" >"$TMP/out" 2>&1; rc=$?
if [ $rc -eq 1 ] && grep -qF 'ust_channel_1@0x0: packet.header.magic: 0xc1fc1fff is not the CTF magic' "$TMP/out" &&
	grep -qF 'ust_channel_3@0x2000: packet.header.magic: 0xffffffff is not the CTF magic' "$TMP/out" &&
	grep -q '2 problems' "$TMP/out"; then
	ok "check lists both damaged packets"
else
	notok "check lists both damaged packets" "exit $rc" "$(cat "$TMP/out")"
fi
# check goes on past a trace that does not open: the good one next to it is still read
mkdir -p "$TMP/two" && cp -r "$F/1/fail/fail2" "$TMP/two/a-bad" && cp -r "$F/1/succeed/wk-heartbeat-u" "$TMP/two/b-good"
"$TIO" check "$TMP/two" >"$TMP/out" 2>&1; rc=$?
if [ $rc -eq 1 ] && grep -qF "a-bad/metadata:9:16: unknown escape sequence '\\o'" "$TMP/out" && grep -q 'b-good: 20 events, ok' "$TMP/out"; then
	ok "check reads the good trace next to a bad one"
else
	notok "check reads the good trace next to a bad one" "exit $rc" "$(cat "$TMP/out")"
fi
# other formats: damaged units are named with file, offset and field (trace.dat: one
# page of 119 events lost out of 10375)
cp "$PEER/tracedat/samples/igt-tests-trace-x86_64-i915-v6.dat" "$TMP/d.dat" && chmod u+w "$TMP/d.dat"
printf '\xff' | dd of="$TMP/d.dat" bs=1 seek=$((0xd0008)) conv=notrunc 2>/dev/null
"$TIO" check "$TMP/d.dat" >"$TMP/out" 2>&1; rc=$?
if [ $rc -eq 1 ] && grep -q 'd.dat@0xd0000: section flyrecord cpu 0: page commit size larger than the page' "$TMP/out" &&
	grep -q '10256 events, 1 problem' "$TMP/out"; then
	ok "check trace.dat: damaged page named, other pages read"
else
	notok "check trace.dat: damaged page named, other pages read" "exit $rc" "$(cat "$TMP/out")"
fi
cp -r "$PEER/ltt0x/traces/trace-15316events_nolost_newformat" "$TMP/l" && chmod -R u+w "$TMP/l"
printf '\0\0\0\0' | dd of="$TMP/l/fs_0" bs=1 seek=16 conv=notrunc 2>/dev/null
"$TIO" check "$TMP/l" >"$TMP/out" 2>&1; rc=$?
if [ $rc -eq 1 ] && grep -qF 'l/fs_0@0x10: block header.magic_number: 0x00000000 is not 0x00D6B7ED' "$TMP/out"; then
	ok "check LTTng 0.x: damaged block named"
else
	notok "check LTTng 0.x: damaged block named" "exit $rc" "$(cat "$TMP/out")"
fi
