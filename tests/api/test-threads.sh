#!/bin/bash
# Decoding on several cores (src/mux/pipe.c): what every command prints with
# worker threads must be, byte for byte (stdout, stderr and exit status),
# what it prints on one thread (TIO_THREADS=1).
#
# The threaded runs use 3 threads and TIO_MT_BATCH, the test knob that caps
# a batch at N messages, at 1, 3 and 64: the hand-overs between threads
# (a value array named again, a packet's events split over batches, a
# trace.dat event held behind its page's lost-events message, an error in
# its place) then happen inside these small traces as they do in big ones.
# Every suite trace: babeltrace's CTF 1.8/2 succeed and fail traces, yactfr's
# pass and fail cases, tests/data, the trace.dat samples and conversions
# (compressed ones too),
# LTTng 0.x (read on the caller's thread: the same by construction, checked
# anyway), with print (babeltrace text, JSON, and the trace-cmd style for
# trace.dat), check, info --count and a filter.
. "$(dirname "$0")/../lib.sh"
B=$PEER/ctf/babeltrace-2.1/ctf-traces
Y=$PEER/ctf/yactfr-iter-data
D=$TIO_TOP/tests/data

# run OUT ARGS...: stdout, stderr and the exit status of traceio ARGS in OUT
run() {
	local out=$1
	shift
	timeout 120 "$TIO" "$@" >"$out" 2>"$out.err"
	echo "exit $?" >>"$out.err"
}

# group NAME "COMMAND ARGS" TRACE...: each trace, one thread against three
group() {
	local name=$1 cmd=$2 n=0 cmp=0 bad=() t batch
	shift 2
	local batches="1 3 64"
	is_sanitized && batches="3"
	for t in "$@"; do
		[ -e "$t" ] || continue
		n=$((n + 1))
		# shellcheck disable=SC2086
		TIO_THREADS=1 run "$TMP/one" $cmd "$t"
		for batch in $batches; do
			# shellcheck disable=SC2086
			TIO_THREADS=3 TIO_MT_BATCH=$batch run "$TMP/mt" $cmd "$t"
			cmp=$((cmp + 1))
			if ! cmp -s "$TMP/one" "$TMP/mt" || ! cmp -s "$TMP/one.err" "$TMP/mt.err"; then
				bad+=("$t (batch $batch): $(diff "$TMP/one" "$TMP/mt" | head -3 | cut -c1-160) $(diff "$TMP/one.err" "$TMP/mt.err" | head -3 | cut -c1-160)")
			fi
		done
	done
	if [ $n -eq 0 ]; then
		notok "threads $name: no trace found"
	elif [ ${#bad[@]} -eq 0 ]; then
		ok "threads $name: $n traces, $cmp threaded runs = one thread"
	else
		notok "threads $name: ${#bad[@]}/$cmp threaded runs differ" "${bad[@]:0:5}"
	fi
}

CTF=("$B"/1/succeed/*/ "$B"/2/succeed/*/ "$Y"/ctf-1/pass-*/ "$D"/ctf/*/)
CTF_FAIL=("$B"/1/fail/*/ "$B"/2/fail/*/ "$Y"/ctf-1/fail-*/)
DAT=("$D"/ftrace/*.dat "$PEER"/tracedat/samples/*.dat "$PEER"/tracedat/converted-by-trace-cmd-3.1.6/*.dat)
LTT=("$PEER"/ltt0x/traces/*/)

group "CTF print" "print" "${CTF[@]}"
group "CTF print --style json" "print --style json" "${CTF[@]}"
group "CTF damaged, print" "print" "${CTF_FAIL[@]}"
group "CTF check" "check" "${CTF[@]}" "${CTF_FAIL[@]}"
group "CTF info --count" "info --count" "${CTF[@]}"
# print -o dummy (and info --count above) with TIO_THREADS=3 read in 3 parts
# (src/cli/parts.c), or on one thread again after an error
group "CTF print -o dummy" "print -o dummy" "${CTF[@]}" "${CTF_FAIL[@]}"
group "trace.dat print -o dummy" "print -o dummy" "${DAT[@]}"
group "trace.dat info --count" "info --count" "${DAT[@]}"
group "trace.dat print" "print" "${DAT[@]}"
group "trace.dat print --style trace-cmd" "print --style trace-cmd" "${DAT[@]}"
group "trace.dat print --style json" "print --style json" "${DAT[@]}"
group "trace.dat check" "check" "${DAT[@]}"
group "trace.dat filter" "print --style trace-cmd -F sched_switch" "${DAT[@]}"
group "LTTng 0.x print" "print" "${LTT[@]}"
# several inputs at once, and a begin bound through the index
group "CTF print --begin" "print --begin 00:00:00.5 --clock-gmt" "${CTF[@]}"

# inputs of two formats merged (a compressed trace.dat: its chunk buffers
# stay while a batch points into them)
"$TIO" print -o dummy "$D"/ftrace/kvm-v7-zstd.dat "$D"/ctf/wk-heartbeat-u >/dev/null 2>&1 &&
	TIO_THREADS=1 run "$TMP/one" print "$D"/ftrace/kvm-v7-zstd.dat "$D"/ctf/lttng-ust-discard &&
	TIO_THREADS=3 TIO_MT_BATCH=2 run "$TMP/mt" print "$D"/ftrace/kvm-v7-zstd.dat "$D"/ctf/lttng-ust-discard &&
	if cmp -s "$TMP/one" "$TMP/mt" && cmp -s "$TMP/one.err" "$TMP/mt.err"; then
		ok "threads: a trace.dat and a CTF trace merged ($(wc -l <"$TMP/one") lines)"
	else
		notok "threads: a trace.dat and a CTF trace merged" "$(diff "$TMP/one" "$TMP/mt" | head -5)"
	fi

# seeking on a threaded mux, forwards and backwards (examples/seek.c checks
# each seek against its own linear read)
EX=$TIO_BUILD/example-seek
if [ -x "$EX" ]; then
	bad=()
	for t in "$D"/ctf/lttng-ust-discard "$D"/ftrace/funcs-v6.dat "$D"/ftrace/kvm-v7-zstd.dat "$B"/1/succeed/multi-domains; do
		TIO_THREADS=3 TIO_MT_BATCH=5 timeout 300 "$EX" -n 200 "$t" >"$TMP/seek" 2>&1 ||
			bad+=("$t: $(grep -v '^index' "$TMP/seek" | head -3)")
	done
	if [ ${#bad[@]} -eq 0 ]; then
		ok "threads: 200 seeks per trace on a threaded mux = its linear read"
	else
		notok "threads: seeks on a threaded mux" "${bad[@]}"
	fi
fi

# TIO_THREADS is read: with one thread no worker runs (the thread count of
# a long print, from /proc while it runs)
if [ -d /proc/self/task ] && [ "$(nproc)" -ge 2 ] && ! is_sanitized; then
	count_threads() { # THREADS: the most threads seen while printing
		local pid max=0 c
		TIO_THREADS=$1 TIO_READAHEAD=0 TIO_MT_BATCH=1 "$TIO" print -o dummy "$B"/1/succeed/multi-domains \
			"$D"/ctf/lttng-ust-discard "$PEER"/tracedat/samples/*.dat >/dev/null 2>&1 &
		pid=$!
		while kill -0 $pid 2>/dev/null; do
			c=$(ls /proc/$pid/task 2>/dev/null | wc -l)
			[ "$c" -gt "$max" ] && max=$c
		done
		wait $pid
		echo $max
	}
	one=$(count_threads 1)
	three=$(count_threads 3)
	if [ "$one" -le 1 ] && [ "$three" -ge 2 ]; then
		ok "threads: TIO_THREADS=1 runs one thread, TIO_THREADS=3 more ($three seen)"
	else
		notok "threads: thread counts" "TIO_THREADS=1: $one threads, TIO_THREADS=3: $three"
	fi
fi

# Left to choose (no TIO_THREADS), the mux starts workers only with 8 MiB or
# more to read from where its streams are: a 360 KB trace and the last 2 MiB
# of a 16 MiB one are read on the caller's thread, the whole 16 MiB on more
# (tests/unit/unit-mt-small.c counts the threads; it passes with 1 CPU).
if [ -x "$TIO_BUILD/unit-mt-small" ] && [ -d /proc/self ]; then
	if python3 "$TIO_TOP/tests/api/mk-big-ctf.py" "$TMP/big16" 8 full &&
		env -u TIO_THREADS TIO_TOP="$TIO_TOP" "$TIO_BUILD/unit-mt-small" "$TMP/big16" >"$TMP/mt-small" 2>&1; then
		ok "threads: workers only with 8 MiB or more left to read (360 KB, the last 2 of 16 MiB: none; 16 MiB: some)"
	else
		notok "threads: workers only with 8 MiB or more left to read" "$(cat "$TMP/mt-small")"
	fi
fi
