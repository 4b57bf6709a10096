#!/bin/bash
# TIME_SHIFT: the host/guest time sync that `trace-cmd record -A` writes into
# a guest's trace.dat, and trace-cmd report's --ts2secs HZ (the rate of
# clocks that do not count ns) and --raw-ts (no correction at all)
# (docs/formats/tracedat.md).  Recording one needs a VM
# with trace-cmd's vsock agent, so real files are given the option by
# tests/tools/add-time-shift.py: two peer v6 samples (x86-64, arm64), and,
# when this machine can record, a v6 and an uncompressed v7 recording of its
# own.  Each case: traceio's print (plain, -t, -R, -l) equals trace-cmd
# 3.1.6's report, which applies the option by default; then, on one case,
# the parts, --begin, the big-endian copy and the trace written back by
# traceio; and damaged options refused with file, offset and field.
. "$TIO_TOP/tests/lib.sh"
command -v trace-cmd > /dev/null || { echo "ok time shift # skip no trace-cmd"; exit 0; }
ADD="python3 $TIO_TOP/tests/tools/add-time-shift.py"
# the ns of each event of `print --style json`
PY_JSON_NS="python3 -c 'import json, sys
for l in sys.stdin:
    o = json.loads(l)
    if o.get(\"type\") == \"event\": print(o[\"ns\"])'"

# cases FILE: the option's variants for FILE, one per line (add-time-shift.py
# arguments), from its CPU count and its first, middle and last raw stamps
cases() {
	"$TIO" print -t "$1" > "$TMP/base" 2> /dev/null
	python3 - "$TMP/base" << 'EOF'
import json, re, sys
ts, cpus = [], 0
for l in open(sys.argv[1]):
    if l.startswith("cpus="):
        cpus = int(l[5:])
    m = re.search(r"\[(\d+)\]\s+(\d+)\.(\d{9}):", l)
    if m:
        ts.append(int(m.group(2)) * 10**9 + int(m.group(3)))
t0, t1 = min(ts), max(ts)
tm = (t0 + t1) // 2
def j(flags, cpu):
    return "--flags %d --json '%s'" % (flags, json.dumps({"cpus": [cpu(c) for c in range(cpus)]}))
# one sample a CPU: its offset alone (trace-cmd ignores its scaling)
print(j(0, lambda c: {"times": [0], "offsets": [10**9 + c * 1000], "scalings": [3]}))
# two samples, interpolated: the CPUs drift apart, so the merged order changes
print(j(1, lambda c: {"times": [t0, t1], "offsets": [10**9, 13 * 10**8] if c % 2 == 0 else [-7000, 250000]}))
# six samples out of order, one time twice (the first kept), interpolated: the search between samples
print(j(1, lambda c: {"times": [t1, t0, tm, (t0 + tm) // 2, tm, (tm + t1) // 2],
                      "offsets": [50000, -20000, 12345 + c, 777, 999999, -3]}))
# the same without INTERPOLATE: each sample's offset up to the next
print(j(0, lambda c: {"times": [t0, (t0 + tm) // 2, tm], "offsets": [100, 200000, 300 * c]}))
# scaling and fraction bits (x1.5 and x1), and a KVM-like 2^48 >> 48 whose product wraps in 64 bits
print(j(1, lambda c: {"times": [t0, t1], "offsets": [1000, 2000], "scalings": [3, 5], "fractions": [1, 2]}
        if c % 2 == 0 else {"times": [t0, t1], "offsets": [0, 0], "scalings": [2**48, 2**48], "fractions": [48, 48]}))
# the option's CPU count smaller than the file's: CPU 0 alone corrected
print("--flags 1 --json '%s'" % json.dumps({"cpus": [{"times": [t0, t1], "offsets": [10**9, 2 * 10**9]}]}))
EOF
}

# check NAME FILE: every case of FILE against trace-cmd; keeps case 3 as $TMP/NAME-3.dat
check() {
	local k=0 args
	while IFS= read -r args; do
		k=$((k + 1))
		if eval "$ADD \"$2\" \"$TMP/ts.dat\" $args" 2> "$TMP/err"; then
			report_same "time shift $1 case $k" "$TMP/ts.dat"
			[ $k -eq 3 ] && cp "$TMP/ts.dat" "$TMP/$1-3.dat"
		else
			notok "time shift $1 case $k: file made" "$(cat "$TMP/err")"
		fi
	done < <(cases "$2")
}

IGT=$PEER/tracedat/samples/igt-tests-trace-x86_64-i915-v6.dat
check igt-v6 "$IGT"
check lisa-arm64-v6 "$PEER/tracedat/samples/lisa-tests-assets-sched_load-arm64-v6.dat"
X=$TMP/igt-v6-3.dat

# the option does not move the print's whole: the same lines in 3 parts, and from a time on
trace-cmd report -t -i "$X" > "$TMP/exp" 2> /dev/null
TIO_THREADS=3 "$TIO" print -t "$X" > "$TMP/got" 2> "$TMP/err"
same "time shift in 3 parts: report -t ($(wc -l < "$TMP/exp") lines)" "$TMP/exp" "$TMP/got"
for at in 4 2; do
	from_time_same "time shift" "$TMP/exp" "$X" $at
done
# big-endian: the sample swapped, then the option written in its byte order
python3 "$TIO_TOP/tests/tools/tracedat-swap.py" "$IGT" "$TMP/be.dat" > /dev/null 2>&1
if eval "$ADD \"$TMP/be.dat\" \"$TMP/ts.dat\" $(cases "$IGT" | sed -n 3p)" 2> "$TMP/err"; then
	report_same "time shift igt-v6 big-endian case 3" "$TMP/ts.dat"
else notok "time shift big-endian file made" "$(cat "$TMP/err")"; fi
# written back by traceio (the stamps on the host's clock, no TIME_SHIFT): the same report
trace-cmd report -i "$X" > "$TMP/exp" 2> /dev/null
written_back_same "time shift" "$TMP/exp" "$X"

# damaged options: the file, the option's offset and what is wrong, exit 1
bad() { # NAME EXPECTED-MESSAGE ADD-ARGS...
	local name=$1 msg=$2
	shift 2
	$ADD "$IGT" "$TMP/bad.dat" "$@"
	"$TIO" print "$TMP/bad.dat" > /dev/null 2> "$TMP/err"
	local rc=$?
	if [ $rc -eq 1 ] && grep -Eq "^traceio: .*bad\.dat@0x[0-9a-f]+: section options: $msg" "$TMP/err"; then
		ok "time shift damaged: $name"
	else
		notok "time shift damaged: $name" "exit $rc" "$(cat "$TMP/err")"
	fi
}
bad "fraction bits cut short" "TIME_SHIFT option: cpu 1: fraction bits truncated" \
	--sample 0:1:2 --sample 0:5:6 --sample 1:1:2 --sample 1:5:6 --truncate 8
bad "samples past the option" "TIME_SHIFT option: cpu 0: the option ends within its 1 samples" \
	--json '{"cpus": [{"times": [1], "offsets": [2]}]}' --count-field 1 --no-fractions --truncate 24
bad "negative CPU count" "TIME_SHIFT option: negative CPU count" \
	--sample 0:1:2 --count-field -1
# what trace-cmd ignores is ignored: no CPU; fewer than 16 bytes
$ADD "$IGT" "$TMP/n.dat" --cpu-count 0
report_same "time shift with no CPU: none" "$TMP/n.dat"

# --ts2secs HZ (trace-cmd report's): every stamp times 1e9 / HZ after TIME_SHIFT, instead of
# TSC2NSEC; trace-cmd then counts --ts-diff in ns; a product past 2^64 is 0 on x86-64, as the
# conversion gives there (HZ 3 on a stamp of 3242 s)
opts_same() { # NAME FILE OPTION...: print and report with the options, plain, -t, -l, --ts-diff
	local v name=$1 file=$2
	shift 2
	for v in "" -t -l --ts-diff "-t --ts-diff"; do
		trace-cmd report $v "$@" -i "$file" > "$TMP/exp" 2> /dev/null
		"$TIO" print $v "$@" "$file" > "$TMP/got" 2> "$TMP/err"
		cmp -s "$TMP/exp" "$TMP/got" || tc_again "$TMP/exp" $v "$@" -i "$file"
		same "$name $* report $v ($(wc -l < "$TMP/exp") lines)" "$TMP/exp" "$TMP/got"
	done
}
for hz in 2800000000 1000000 3; do
	opts_same "igt-v6" "$IGT" --ts2secs $hz
done
opts_same "time shift igt-v6 case 3" "$X" --ts2secs 1000000
# --raw-ts (trace-cmd report's): the stamps as the ring buffer has them, as integers; no
# TIME_SHIFT, --ts2secs, TSC2NSEC nor OFFSET/DATE
opts_same "igt-v6" "$IGT" --raw-ts
opts_same "time shift igt-v6 case 3" "$X" --raw-ts --ts2secs 1000000
# a v6 file whose clock is named only by the list after the CPU table: trace-cmd does not
# read that list when given --ts2secs (its stamps then show as a ns clock's, --raw-ts or not)
L32=$PEER/tracedat/samples/lisa-trappy-tests-trace-arm32-v6.dat
opts_same "lisa-arm32-v6" "$L32" --raw-ts
opts_same "lisa-arm32-v6" "$L32" --raw-ts --ts2secs 1000
# the model's ns too (JSON, Parquet, CTF take them): 1000 times the plain ones at 1 MHz
"$TIO" print --style json "$IGT" 2> /dev/null | eval "$PY_JSON_NS" > "$TMP/ns1"
"$TIO" print --style json --ts2secs 1000000 "$IGT" 2> /dev/null | eval "$PY_JSON_NS" > "$TMP/ns2"
if [ -s "$TMP/ns1" ] && python3 -c 'import sys
a = [int(l) for l in open(sys.argv[1])]; b = [int(l) for l in open(sys.argv[2])]
sys.exit(not (len(a) == len(b) and all(y == x * 1000 for x, y in zip(a, b))))' "$TMP/ns1" "$TMP/ns2"; then
	ok "--ts2secs 1000000: JSON ns 1000 times the file's ($(wc -l < "$TMP/ns1") events)"
else notok "--ts2secs 1000000: JSON ns 1000 times the file's" "$(head -2 "$TMP/ns1") / $(head -2 "$TMP/ns2")"; fi
# with no trace.dat among the inputs they are refused (print, info, convert), as SQL and Python do;
# among other inputs they apply to the trace.dat ones
C=$TIO_TOP/tests/data/ctf/wk-heartbeat-u
# (print -o dummy in 2 parts too: the parts open the inputs themselves)
for cmd in "print --ts2secs 1000" "info --raw-ts" "convert -q --to parquet -o $TMP/nope --ts2secs 1000" "print -o dummy --raw-ts"; do
	TIO_THREADS=2 "$TIO" $cmd "$C" > /dev/null 2> "$TMP/err"; rc=$?
	name=$(echo "$cmd" | sed 's/ -q.*//; s/ --.*//')
	if [ $rc -ne 0 ] && grep -q "is for trace.dat inputs, and none is one" "$TMP/err" && [ ! -e "$TMP/nope" ]; then
		ok "$name with a trace.dat option on a CTF trace alone: refused"
	else notok "$name with a trace.dat option on a CTF trace alone: refused" "exit $rc" "$(cat "$TMP/err")"; fi
done
"$TIO" print --style json --ts2secs 1000000 "$C" "$IGT" 2> /dev/null | eval "$PY_JSON_NS" | sort -n > "$TMP/ns3"
"$TIO" print --style json "$C" 2> /dev/null | eval "$PY_JSON_NS" > "$TMP/ns4"
python3 -c 'import sys; print(*sorted([int(l) * 1000 for l in open(sys.argv[1])] + [int(l) for l in open(sys.argv[2])]), sep="\n")' \
	"$TMP/ns1" "$TMP/ns4" > "$TMP/ns5"
same "--ts2secs with a CTF and a trace.dat input: the trace.dat's times alone scaled" "$TMP/ns5" "$TMP/ns3"
for hz in 0 -5 2.5 x; do
	"$TIO" print --ts2secs $hz "$IGT" > /dev/null 2> "$TMP/err"; rc=$?
	if [ $rc -eq 2 ] && grep -q "ts2secs: '$hz' is not a frequency" "$TMP/err"; then ok "--ts2secs $hz refused"
	else notok "--ts2secs $hz refused" "exit $rc" "$(cat "$TMP/err")"; fi
done

# this machine's own recordings, v6 and v7 (uncompressed: the script appends an options section)
why=$(why_no_recording)
if [ -n "$why" ]; then
	echo "ok time shift on recordings # skip $why"
	exit 0
fi
WL="sh -c 'ls -R /usr/share/doc > /dev/null; sleep 0.05'"
for v in "6 --file-version 6" "7 --compression none"; do
	set -- $v
	rm -f "$TMP/rec.dat"
	eval timeout 120 flock /tmp/tio-record.lock $NS trace-cmd record -o "$TMP/rec.dat" ${*:2} -b 4096 -e sched -e irq $WL > "$TMP/rec.log" 2>&1
	if [ -s "$TMP/rec.dat" ]; then
		check "recording-v$1" "$TMP/rec.dat"
	else
		notok "time shift: v$1 recorded" "$(tail -3 "$TMP/rec.log")"
	fi
done
# --ts2secs where it is meant for: the clocks trace-cmd does not count in ns; --raw-ts
# on a recording with --date (its offset left out)
for c in "-C x86-tsc" "-C counter" --date; do
	[ "$c" = --date ] || grep -qw "${c#-C }" /sys/kernel/tracing/trace_clock || continue
	rm -f "$TMP/rec.dat"
	eval timeout 120 flock /tmp/tio-record.lock $NS trace-cmd record -o "$TMP/rec.dat" $c -b 4096 -e sched $WL > "$TMP/rec.log" 2>&1
	if [ -s "$TMP/rec.dat" ]; then
		opts_same "recording $c" "$TMP/rec.dat" --ts2secs 2800000000
		opts_same "recording $c" "$TMP/rec.dat" --raw-ts
	else
		notok "recording $c" "$(tail -3 "$TMP/rec.log")"
	fi
done
