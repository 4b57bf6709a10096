#!/bin/bash
# --begin/--end and --cpu on trace.dat inputs.
# trace-cmd report has no time range option (`trace-cmd split START END`
# is the nearest, but 3.1.6's copies the first record of a CPU or of a page
# with lost events twice), so the oracle for a range is report -t itself:
# its lines whose timestamp is in [begin, end] (tests/tools/report-range.awk),
# on committed expectations, at boundaries that fall on an event (inclusive
# at both ends) and one ns past it.  --cpu: report --cpu of trace-cmd
# 3.1.6 when installed (single-buffer files; see docs/formats/tracedat.md for
# instances and several inputs), and the committed report lines of a CPU.
. "$TIO_TOP/tests/lib.sh"
D=$PEER/tracedat
F=$TIO_TOP/tests/data/ftrace
RANGE=$TIO_TOP/tests/tools/report-range.awk

expected() { if [ -f "$1.xz" ]; then xz -dc "$1.xz"; else cat "$1"; fi; }
# ns of the Nth event line of a report -t text
nth_ns() { awk -v N="$2" '!/cpus=/ && !/EVENTS DROPPED/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { if (++n == N) { split(substr($i, 1, length($i) - 1), p, "."); printf "%d%09d\n", p[1], p[2]; exit } break } }' "$1"; }
sec() { printf '%d.%09d' $(($1 / 1000000000)) $(($1 % 1000000000)); }

range() { # NAME DAT REPORT_T B_NS E_NS
	awk -v B="$4" -v E="$5" -f "$RANGE" "$3" > "$TMP/exp"
	"$TIO" print -t --begin "$(sec "$4")" --end "$(sec "$5")" "$2" > "$TMP/got" 2> "$TMP/err"
	same "range $1 [$(sec "$4"), $(sec "$5")] ($(($(wc -l < "$TMP/exp") - 1)) lines)" "$TMP/exp" "$TMP/got"
}

for x in "v7-zstd-small $F/v7-zstd-small.dat $F/v7-zstd-small.report-t.txt" \
	 "kmem-tlb $F/kmem-tlb-v7-zstd.dat $F/kmem-tlb-v7-zstd.report-t.txt" \
	 "arm32-v6 $D/samples/lisa-trappy-tests-trace-arm32-v6.dat $D/expected-trace-cmd-3.1.6/lisa-trappy-tests-trace-arm32-v6.report-t.txt" \
	 "langraph $D/samples/langraph-x86_64-v7-zstd.dat $D/expected-trace-cmd-3.1.6/langraph-x86_64-v7-zstd.report-t.txt"; do
	set -- $x
	[ -f "$2" ] || continue
	expected "$3" > "$TMP/rep"
	a=$(nth_ns "$TMP/rep" 100) b=$(nth_ns "$TMP/rep" 400)
	range "$1" "$2" "$TMP/rep" "$a" "$b"                 # both ends on an event: kept
	range "$1" "$2" "$TMP/rep" $((a + 1)) $((b - 1))     # one ns past: dropped
	range "$1" "$2" "$TMP/rep" 0 "$a"                    # from the start
done

# --cpu: the committed report lines of one CPU
expected "$F/kmem-tlb-v7-zstd.report-t.txt" | awk 'NR == 1 || / \[000\] /' > "$TMP/exp"
"$TIO" print -t --cpu 0 "$F/kmem-tlb-v7-zstd.dat" > "$TMP/got" 2>&1
same "cpu 0 = report lines of CPU 0" "$TMP/exp" "$TMP/got"
# --cpu with a range
a=$(nth_ns "$TMP/exp" 50) b=$(nth_ns "$TMP/exp" 150)
awk -v B="$a" -v E="$b" -f "$RANGE" "$TMP/exp" > "$TMP/exp2"
"$TIO" print -t --cpu 0 --begin "$(sec "$a")" --end "$(sec "$b")" "$F/kmem-tlb-v7-zstd.dat" > "$TMP/got" 2>&1
same "cpu 0 and a range" "$TMP/exp2" "$TMP/got"

# times beyond an int64 count of ns (from 9223372036.854775808 s, dates after 2262-04-11
# 23:47:16 UTC) are refused, exit 2, without signed overflow (the UBSan pass checks that);
# the last ones within it are read
for t in 9223372036.854775808 9223372037 99999999999 "2262-04-11 23:47:17" "2263-01-01 00:00:00"; do
	for c in "print -o dummy" "convert -q --to ctf -o $TMP/never"; do
		TZ=UTC "$TIO" $c --begin "$t" "$F/funcs-v6.dat" > /dev/null 2> "$TMP/err"
		rc=$?
		if [ $rc -eq 2 ] && grep -q "cannot parse time '$t'" "$TMP/err"; then ok "${c%% *} --begin '$t' refused"
		else notok "${c%% *} --begin '$t' refused (exit 2)" "exit $rc" "$(head -3 "$TMP/err")"; fi
	done
done
for t in 9223372036.854775807 -9223372036.854775807 "2262-04-11 23:47:16"; do
	TZ=UTC "$TIO" print -o dummy --end "$t" "$F/funcs-v6.dat" > /dev/null 2> "$TMP/err"
	rc=$?
	if [ $rc -eq 0 ] && [ ! -s "$TMP/err" ]; then ok "print --end '$t' read"; else notok "print --end '$t' read" "exit $rc" "$(head -3 "$TMP/err")"; fi
done

command -v trace-cmd > /dev/null || { echo "ok cpu live trace-cmd # skip no trace-cmd"; exit 0; }
# not the samples with an empty trace_clock: trace-cmd 3.1.6 reads past it and
# its output then depends on heap garbage (see tests/ftrace/test-multi.sh)
for f in "$D/samples/lisa-tests-assets-sched_load-arm64-v6.dat" "$D/samples/lisa-trappy-tests-trace_idle-arm64-v6.dat" \
	"$F/v7-zstd-small.dat"; do
	for c in 0 1 0,2 1-3 0-1,5 7; do
		trace-cmd report --cpu "$c" -i "$f" > "$TMP/exp" 2> /dev/null
		"$TIO" print --cpu "$c" "$f" > "$TMP/got" 2> "$TMP/err"
		same "cpu $c $(basename "$f") = report --cpu ($(wc -l < "$TMP/exp") lines)" "$TMP/exp" "$TMP/got"
	done
done

