#!/bin/bash
# CTF 1.8: `traceio print` against `babeltrace2` (Debian's 2.0.4) on every
# trace of babeltrace's own CTF 1.8 suite: same stdout bytes, same
# "WARNING: Tracer discarded" lines on stderr.  babeltrace2 2.0.4 crashes on
# def-clk-freq and meta-ctx-sequence: those are compared with expected text
# kept in tests/data/expect/ (made from the 2.1 suite's details files).
. "$(dirname "$0")/../lib.sh"
BT=$PEER/ctf/babeltrace-2.1/ctf-traces/1
command -v babeltrace2 >/dev/null || { notok "babeltrace2 installed" "install it: scripts/deps.sh test"; exit 0; }

compare() { # NAME TRACE [OPTIONS...]
	local name=$1 trace=$2; shift 2
	# babeltrace2 colors only a terminal unless its environment says so
	local env=
	case " $* " in *" --color always "*) env=BABELTRACE_TERM_COLOR=always;; esac
	env $env babeltrace2 "$@" "$trace" >"$TMP/bt.out" 2>"$TMP/bt.err"
	local btrc=$?
	"$TIO" print "$@" "$trace" >"$TMP/tio.out" 2>"$TMP/tio.err"
	local rc=$?
	if [ $btrc -ne 0 ]; then
		notok "$name: babeltrace2 failed ($btrc)"; return
	fi
	if [ $rc -ne 0 ]; then
		notok "$name: exit $rc" "$(head -3 "$TMP/tio.err")"; return
	fi
	grep 'WARNING.*: Tracer' "$TMP/bt.err" >"$TMP/bt.warn"
	grep 'WARNING.*: Tracer' "$TMP/tio.err" >"$TMP/tio.warn"
	if ! python3 "$TIO_TOP/tests/tools/cmp-bt2.py" "$TMP/bt.out" "$TMP/tio.out" >"$TMP/cmp"; then
		notok "$name" "$(cut -c1-300 "$TMP/cmp")"
	elif ! cmp -s "$TMP/bt.warn" "$TMP/tio.warn"; then
		notok "$name (stderr warnings)" "$(diff "$TMP/bt.warn" "$TMP/tio.warn" | head -6)"
	else
		ok "$name ($(wc -l <"$TMP/tio.out") lines)"
	fi
}

cd "$BT/succeed"
for d in */; do
	d=${d%/}
	case $d in def-clk-freq|meta-ctx-sequence) continue;; esac
	compare "succeed/$d" "$d"
done
# the same trace (same UUID) in several places is one trace; a packet found
# twice is read once, whatever the order of the inputs
compare "deterministic-ordering b + c" ../deterministic-ordering/b-not-corrupted ../deterministic-ordering/c-corrupted
compare "deterministic-ordering c + b" ../deterministic-ordering/c-corrupted ../deterministic-ordering/b-not-corrupted
babeltrace2 ../deterministic-ordering/a-corrupted ../deterministic-ordering/b-not-corrupted >"$TMP/bt.out" 2>/dev/null
"$TIO" print ../deterministic-ordering/a-corrupted ../deterministic-ordering/b-not-corrupted >"$TMP/tio.out" 2>"$TMP/tio.err"
rc=$?
if [ $rc -ne 0 ] && cmp -s "$TMP/bt.out" "$TMP/tio.out" && grep -q 'a-corrupted/dummystream@0x5: event.header: no event class with id 255' "$TMP/tio.err"; then
	ok "deterministic-ordering a + b: the events before the damage, then the error, exit $rc"
else
	notok "deterministic-ordering a + b: exit $rc" "$(cat "$TMP/tio.err")" "$(diff "$TMP/bt.out" "$TMP/tio.out")"
fi
# the same trace given twice (two paths to one LTTng trace whose stream files hold many
# packets): each file is read once, as babeltrace2 reads it (before 2026-11-27 every packet
# of a second copy followed its own file's last packet, and the signature check that drops a
# packet seen twice never met its twin: 14 078 events instead of 7 039)
U=$TIO_TOP/tests/data/ctf/lttng-ust-discard
babeltrace2 "$U" "$U/" >"$TMP/bt.out" 2>/dev/null
"$TIO" print "$U" "$U/" >"$TMP/tio.out" 2>"$TMP/tio.err"
rc=$?
"$TIO" print "$U" >"$TMP/tio1.out" 2>/dev/null
if [ $rc -eq 0 ] && python3 "$TIO_TOP/tests/tools/cmp-bt2.py" "$TMP/bt.out" "$TMP/tio.out" >"$TMP/cmp" &&
	cmp -s "$TMP/tio.out" "$TMP/tio1.out"; then
	ok "the same LTTng trace given twice: read once, as babeltrace2 ($(wc -l <"$TMP/tio.out") lines)"
else
	notok "the same LTTng trace given twice: read once" "exit $rc, $(wc -l <"$TMP/tio.out") lines, once: $(wc -l <"$TMP/tio1.out")" \
		"$(cut -c1-300 "$TMP/cmp")"
fi
for d in ../packet-seq-num/* ../intersection/* ../deterministic-ordering/b-not-corrupted; do
	[ -d "$d" ] || continue
	compare "${d#../}" "$d"
done

# babeltrace2's options on a few traces
for t in wk-heartbeat-u multi-domains sequence debug-info; do
	compare "$t --no-delta" "$t" --no-delta
	compare "$t --clock-gmt --clock-date" "$t" --clock-gmt --clock-date
	compare "$t --clock-seconds" "$t" --clock-seconds
	compare "$t --clock-cycles" "$t" --clock-cycles
	compare "$t --names all" "$t" --names all
	compare "$t --names none" "$t" --names none
	compare "$t --fields all" "$t" --fields all
	compare "$t --fields trace:procname,loglevel" "$t" --fields trace:procname,loglevel
	compare "$t --clock-offset 3" "$t" --clock-offset 3
	compare "$t --clock-offset-ns -5" "$t" --clock-offset-ns -5
done
compare "several traces merged" "wk-heartbeat-u" "../succeed/debug-info"
compare "a directory of traces" "../packet-seq-num"
for t in wk-heartbeat-u multi-domains; do
	compare "$t --color always" "$t" --color always
	compare "$t -n all -f all --color always" "$t" -n all -f all --color always
done

# a real lossy LTTng-UST recording (discarded events in many packets of two
# streams): the order of the warnings among the events must be babeltrace2's
compare "lttng-ust-discard (recorded)" "$TIO_TOP/tests/data/ctf/lttng-ust-discard"
compare "lttng-ust-discard --begin/--end" "$TIO_TOP/tests/data/ctf/lttng-ust-discard" --begin 00:37:57.426 --end 00:37:57.433

# trimming, with every time format babeltrace2 takes
compare "trim: time of day" wk-heartbeat-u --begin 17:48:17.587 --end 17:48:17.5875
compare "trim: time of day UTC" wk-heartbeat-u --clock-gmt --begin 17:48:17.587
compare "trim: --timerange" wk-heartbeat-u "--timerange=[17:48:17.586634786,17:48:17.587118926]"
compare "trim: seconds from origin" wk-heartbeat-u --begin 1351532897.587
compare "trim: date and time" wk-heartbeat-u --clock-gmt --begin "2012-10-29 17:48:17.5871" --end "2012-10-29 17:48:18"
compare "trim: several streams and traces" multi-domains --begin 19:15:41.5 --end 19:16:10

# the two traces babeltrace2 2.0.4 crashes on: expected text from the 2.1 details files
for d in def-clk-freq meta-ctx-sequence; do
	"$TIO" print "$d" >"$TMP/tio.out" 2>"$TMP/tio.err" || { notok "succeed/$d: exit $?" "$(cat "$TMP/tio.err")"; continue; }
	same "succeed/$d (2.1 expectations)" "$TIO_TOP/tests/data/expect/$d.txt" "$TMP/tio.out"
done

# what babeltrace2 cannot read (bit-fields, wide integers, binary16, a second
# clock in a stream): a hand-made trace and its hand-worked expected text
"$TIO" print "$TIO_TOP/tests/data/ctf/handmade-bitfields" >"$TMP/tio.out" 2>"$TMP/tio.err" || notok "handmade-bitfields: exit $?" "$(cat "$TMP/tio.err")"
same "handmade-bitfields (GNU/C bit-fields, 72-bit integer, binary16, two clocks)" "$TIO_TOP/tests/data/expect/handmade-bitfields.txt" "$TMP/tio.out"
