#!/bin/bash
# traceio print on trace.dat files vs trace-cmd 3.1.6 `report`, `report -t`,
# `report -R`, byte for byte: the peer corpus (samples/ and the files
# trace-cmd converted to v7) and tests/data/ftrace.
. "$TIO_TOP/tests/lib.sh"
D=$PEER/tracedat
E=$D/expected-trace-cmd-3.1.6

# expected FILE.txt[.xz] -> stdout
expected() { if [ -f "$1.xz" ]; then xz -dc "$1.xz"; else cat "$1"; fi; }

check() { # NAME DAT EXPECTED-BASE
	local name=$1 dat=$2 base=$3 v opt
	for v in report report-t report-R; do
		case $v in report) opt=;; report-t) opt=-t;; report-R) opt=-R;; esac
		[ -f "$base.$v.txt" ] || [ -f "$base.$v.txt.xz" ] || continue
		expected "$base.$v.txt" > "$TMP/exp"
		if ! "$TIO" print $opt "$dat" > "$TMP/got" 2> "$TMP/err"; then
			notok "$name $v" "exit status $?" "$(head -3 "$TMP/err")"
			continue
		fi
		# langraph: one kernel_stack record ends its CPU's data; trace-cmd -R dumps
		# the 64-byte caller[] array from past the end of its own buffer there
		# (heap garbage): that one line cannot be reproduced.
		if [ "$name" = langraph-x86_64-v7-zstd ] && [ $v = report-R ]; then
			grep -v '^     ksoftirqd/0-13    \[000\] 11371.459214: kernel_stack:' "$TMP/exp" > "$TMP/exp2"
			grep -v '^     ksoftirqd/0-13    \[000\] 11371.459214: kernel_stack:' "$TMP/got" > "$TMP/got2"
			mv "$TMP/exp2" "$TMP/exp"; mv "$TMP/got2" "$TMP/got"
		fi
		same "$name $v" "$TMP/exp" "$TMP/got"
	done
}

for f in "$D"/samples/*.dat "$D"/converted-by-trace-cmd-3.1.6/*.dat; do
	[ -f "$f" ] || continue
	b=$(basename "$f" .dat)
	if is_sanitized && [ "$(stat -c %s "$f")" -gt 3000000 ] && [ "$b" != lisa-tests-trace-arm32-v6-large ]; then
		: # fine under ASan too, just slower
	fi
	check "$b" "$f" "$E/$b"
done
check v7-zstd-small "$TIO_TOP/tests/data/ftrace/v7-zstd-small.dat" "$TIO_TOP/tests/data/ftrace/v7-zstd-small"
check kmem-tlb-v7-zstd "$TIO_TOP/tests/data/ftrace/kmem-tlb-v7-zstd.dat" "$TIO_TOP/tests/data/ftrace/kmem-tlb-v7-zstd"
check filter-stack-v7 "$TIO_TOP/tests/data/ftrace/filter-stack-v7.dat" "$TIO_TOP/tests/data/ftrace/filter-stack-v7"
check lossy-v7-zstd "$TIO_TOP/tests/data/ftrace/lossy-v7-zstd.dat" "$TIO_TOP/tests/data/ftrace/lossy-v7-zstd"
# trace-cmd's function graph view: leaves found on the next record of the
# file, their returns swallowed, the return CPU's next record first
FG=$TIO_TOP/tests/data/ftrace/funcgraph-v6
check funcgraph-v6 "$FG.dat" "$FG"
expected "$FG.report-t.txt" > "$TMP/full"
for n in 9 23 40 77; do # begin at the Nth graph record: earlier entries still swallow their returns
	b=$(grep funcgraph "$TMP/full" | sed -n "${n}p" | awk '{ sub(":", "", $3); print $3 }')
	awk -v B="$b" 'NR == 1 || $3 + 0 >= B' "$TMP/full" > "$TMP/exp"
	"$TIO" print -t --begin "$b" "$FG.dat" > "$TMP/got" 2>&1
	same "funcgraph-v6 --begin $b ($(wc -l < "$TMP/exp") lines)" "$TMP/exp" "$TMP/got"
done
if command -v trace-cmd > /dev/null; then
	for c in 0 1; do
		trace-cmd report --cpu $c -i "$FG.dat" > "$TMP/exp" 2> /dev/null
		"$TIO" print --cpu $c "$FG.dat" > "$TMP/got" 2>&1
		cmp -s "$TMP/exp" "$TMP/got" || tc_again "$TMP/exp" --cpu $c -i "$FG.dat"
		same "funcgraph-v6 --cpu $c = report --cpu $c" "$TMP/exp" "$TMP/got"
	done
fi
# the function plugin (call-depth indentation per CPU), func_repeats, raw_data
FN=$TIO_TOP/tests/data/ftrace/funcs-v6
check funcs-v6 "$FN.dat" "$FN"
# events before --begin still move the function plugin's stacks: the lines
# from the 60th event on are the report's own
expected "$FN.report.txt" > "$TMP/full"
b=$(awk '/ function: / && ++n == 60 { sub(":", "", $3); print $3; exit }' "$TMP/full")
awk -v B="$b" 'NR == 1 || $3 + 0 >= B' "$TMP/full" > "$TMP/exp"
"$TIO" print --begin "$b" "$FN.dat" > "$TMP/got" 2>&1
if [ "$(grep -c ' function: ' "$TMP/exp")" -lt 20 ] || ! grep -q 'function:                [a-z]' "$TMP/exp"; then
	notok "funcs-v6 --begin $b" "expected lines do not cover indented function calls"
else
	same "funcs-v6 --begin $b ($(wc -l < "$TMP/exp") lines)" "$TMP/exp" "$TMP/got"
fi

# --cpu keeps one CPU's lines (and the header)
expected "$TIO_TOP/tests/data/ftrace/v7-zstd-small.report.txt" | awk 'NR==1 || / \[001\] /' > "$TMP/exp"
"$TIO" print --cpu 1 "$TIO_TOP/tests/data/ftrace/v7-zstd-small.dat" > "$TMP/got" 2>&1
same "cpu filter" "$TMP/exp" "$TMP/got"

# -l, the latency format (irqs off, need resched, hard/soft irq, preempt
# count columns; -R: the flags in hex), and --ts-diff (the time since the
# line before), against the trace-cmd installed
if command -v trace-cmd > /dev/null; then
	for f in "$D"/samples/*.dat "$TIO_TOP"/tests/data/ftrace/*.dat; do
		for v in "-l" "-l -t" "-l -R" "--ts-diff" "--ts-diff -t" "--ts-diff -l"; do
			# trace-cmd counts the difference in its print order, which a function
			# graph return on another CPU changes (docs/formats/tracedat.md)
			[ "$(basename "$f")" = funcgraph-v6.dat ] && [ "${v#--ts-diff}" != "$v" ] && continue
			trace-cmd report $v -i "$f" > "$TMP/exp" 2> /dev/null
			"$TIO" print $v "$f" > "$TMP/got" 2> "$TMP/err"
			cmp -s "$TMP/exp" "$TMP/got" || tc_again "$TMP/exp" $v -i "$f"
			if [ "$(basename "$f")" = langraph-x86_64-v7-zstd.dat ] && [ "$v" = "-l -R" ]; then
				# the kernel_stack line above (heap garbage in trace-cmd's -R)
				grep -v '^ksoftirq-13      0-0x10 11371.459214: kernel_stack:' "$TMP/exp" > "$TMP/exp2"
				grep -v '^ksoftirq-13      0-0x10 11371.459214: kernel_stack:' "$TMP/got" > "$TMP/got2"
				mv "$TMP/exp2" "$TMP/exp"; mv "$TMP/got2" "$TMP/got"
			fi
			same "$(basename "$f" .dat) report $v ($(wc -l < "$TMP/exp") lines)" "$TMP/exp" "$TMP/got"
		done
	done
fi
