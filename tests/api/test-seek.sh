#!/bin/bash
# Random access: tio_mux_seek and --begin through the packet index.
#
# example-seek (examples/seek.c, public API only) reads each trace once,
# then seeks 1000 times to random times (and exact event times, before the
# first, after the last), forwards and backwards on one mux, and checks the
# next 20 events against the linear read: every suite trace (babeltrace's
# CTF 1.8/2 succeed traces, yactfr's pass cases, tests/data, the trace.dat
# samples and trace-cmd conversions, LTTng 0.x), one line per group.
#
# Then `traceio print --begin T` (babeltrace2 text and JSON) through the
# index must print exactly what reading from the beginning prints
# (TIO_SEEK=0), at 14 times per trace, and the trace-cmd style, which
# passes over the classes its state does not need, what decoding them all
# prints; and the index's answers (range, counts) are checked against a
# full read.
. "$(dirname "$0")/../lib.sh"
EX=$TIO_BUILD/example-seek

# group NAME TRACE...: example-seek on each (A|B: two inputs at once)
group() {
	local name=$1 n=0 seeks=0 events=0 skipped=0 bad=() t in
	shift
	for t in "$@"; do
		IFS='|' read -ra in <<<"$t"
		[ -e "${in[0]}" ] || continue
		n=$((n + 1))
		timeout 300 "$EX" -n "${SEEKS:-1000}" "${in[@]}" >"$TMP/seek.out" 2>"$TMP/seek.err"
		local rc=$?
		if [ $rc -eq 2 ] && ! "$TIO" print -o dummy "${in[@]}" >/dev/null 2>&1; then
			skipped=$((skipped + 1)) # cannot be opened: the CLI refuses it too
			continue
		fi
		if [ $rc -ne 0 ]; then
			bad+=("$t: $(grep -v '^index' "$TMP/seek.out" | head -3) $(head -c 300 "$TMP/seek.err")")
			continue
		fi
		local line
		line=$(grep '^seek:' "$TMP/seek.out")
		events=$((events + $(echo "$line" | awk '{print $2}')))
		case $line in *"not checked"*) ;; *) seeks=$((seeks + $(echo "$line" | awk '{print $4}'))) ;; esac
	done
	if [ $n -eq 0 ]; then
		notok "seek $name: no trace found"
	elif [ ${#bad[@]} -eq 0 ]; then
		ok "seek $name: $((n - skipped)) traces, $seeks seeks checked against the linear read ($events events)$([ $skipped -gt 0 ] && echo "; $skipped that traceio print cannot open either")"
	else
		notok "seek $name: ${#bad[@]}/$n traces with a wrong seek" "${bad[@]}"
	fi
}

if [ ! -x "$EX" ]; then
	notok "example-seek: not built in $TIO_BUILD"
	exit 0
fi
B=$PEER/ctf/babeltrace-2.1/ctf-traces
Y=$PEER/ctf/yactfr-iter-data
D=$TIO_TOP/tests/data
if is_sanitized; then SEEKS=200; fi
group "babeltrace CTF 1.8 succeed" "$B"/1/succeed/*/
group "babeltrace CTF 2 succeed" "$B"/2/succeed/*/
group "yactfr ctf-1 pass-*" "$Y"/ctf-1/pass-*/
group "tests/data/ctf" "$D"/ctf/*/
group "tests/data/ftrace" "$D"/ftrace/*.dat
group "trace.dat samples" "$PEER"/tracedat/samples/*.dat
group "trace.dat converted by trace-cmd" "$PEER"/tracedat/converted-by-trace-cmd-3.1.6/*.dat
group "LTTng 0.x (block index)" "$PEER"/ltt0x/traces/*/
group "several inputs at once" "$D/ctf/wk-heartbeat-u|$D/ctf/lttng-ust-discard" \
	"$D/ftrace/funcs-v6.dat|$D/ftrace/kvm-v7-zstd.dat"

# a trace of several packets per stream, recorded with discarded events:
# the index must carry the discarded counters and sequence numbers over
# --begin through the index prints what a read from the beginning prints
begin_same() { # NAME TRACE...
	local name=$1 n=0 bad=() t style
	shift
	"$TIO" print --style json "$@" 2>/dev/null | grep '^{"type":"event"' |
		sed -n 's/.*"ns":\(-\{0,1\}[0-9]*\).*/\1/p' >"$TMP/times"
	local total
	total=$(wc -l <"$TMP/times")
	[ "$total" -gt 0 ] || { notok "begin $name: no event"; return; }
	for frac in 0 1 10 50 90 99 100; do
		local line=$(( total * frac / 100 )) ns
		[ "$line" -lt 1 ] && line=1
		ns=$(sed -n "${line}p" "$TMP/times")
		# as SEC.NS from origin, and 1 ns later (between two events)
		for t in "$ns" "$((ns + 1))"; do
			local ts
			ts=$(awk -v n="$t" 'BEGIN { s = int(n / 1e9); if (s * 1e9 > n) s--; printf "%d.%09d", s, n - s * 1e9 }')
			for style in $STYLES; do
				n=$((n + 1))
				TIO_SEEK=0 "$TIO" print --style $style --begin "$ts" "$@" >"$TMP/lin" 2>&1
				local r1=$?
				"$TIO" print --style $style --begin "$ts" "$@" >"$TMP/idx" 2>&1
				local r2=$?
				if [ $r1 -ne $r2 ] || ! cmp -s "$TMP/lin" "$TMP/idx"; then
					bad+=("--begin $ts --style $style: exit $r1/$r2" "$(diff "$TMP/lin" "$TMP/idx" | head -4 | cut -c1-200)")
				fi
			done
		done
	done
	if [ ${#bad[@]} -eq 0 ]; then
		ok "begin $name: $n prints with --begin through the index = from the beginning"
	else
		notok "begin $name: $((${#bad[@]} / 2))/$n differ" "${bad[@]}"
	fi
}
STYLES="babeltrace json"
begin_same "lttng-ust-discard (discarded events)" "$D/ctf/lttng-ust-discard"
begin_same "wk-heartbeat-u" "$D/ctf/wk-heartbeat-u"
for t in "$B"/1/succeed/multi-domains "$D"/ftrace/kvm-v7-zstd.dat "$D"/ftrace/funcs-v6.dat; do
	[ -e "$t" ] && begin_same "$(basename "$t")" "$t"
done
STYLES="json lttv"
for t in "$PEER"/ltt0x/traces/*/; do
	[ -e "$t" ] && begin_same "LTTng 0.x $(basename "$t")" "$t"
done
# the trace-cmd style reads the events before --begin (comm names, function
# stacks, function-graph entries), passing over the classes it has no use
# for without decoding them: the same text as decoding them all
STYLES="trace-cmd"
for t in "$D"/ftrace/*.dat "$PEER"/tracedat/samples/*.dat; do
	[ -e "$t" ] && begin_same "trace-cmd style, $(basename "$t")" "$t"
done
# classes the style needs only once a function graph entry came before
# --begin (TIO_SKIP_ASK): funcgraph-v6 with every other sched_switch record
# made an ftrace print record (id 5).  Its output does not depend on
# whether a "no" is asked again (checked: the same when it never is);
# tests/unit/unit-skip-ask.c checks that rule
if [ -e "$D/ftrace/funcgraph-v6.dat" ]; then
	cp "$D/ftrace/funcgraph-v6.dat" "$TMP/fgmix.dat"
	"$TIO" print --style json "$D/ftrace/funcgraph-v6.dat" | python3 -c '
import json, sys
with open(sys.argv[1], "r+b") as f:
    n = 0
    for l in sys.stdin:
        o = json.loads(l)
        if o.get("event_class") == "sched_switch":
            n += 1
            if n % 2:
                f.seek(o["offset"]); f.write((5).to_bytes(2, "little"))
' "$TMP/fgmix.dat"
	if "$TIO" info --count "$TMP/fgmix.dat" | grep -q " print (id 5)"; then
		begin_same "trace-cmd style, funcgraph-v6 with print records" "$TMP/fgmix.dat"
	else
		notok "trace-cmd style, funcgraph-v6 with print records: not made"
	fi
fi

# the index's answers against a full read: range within the events' (CTF:
# packet bounds hold every event; trace.dat: the first and last events), the
# estimate within 25% of the count
index_vs_read() { # TRACE
	local t=$1
	"$EX" -n 0 "$t" >"$TMP/ix" 2>&1 || { notok "index $(basename "$t"): exit $?" "$(head -3 "$TMP/ix")"; return; }
	"$TIO" print --style json "$t" 2>/dev/null | grep '^{"type":"event"' |
		sed -n 's/.*"ns":\(-\{0,1\}[0-9]*\).*/\1/p' | sort -n >"$TMP/t"
	local first last count
	first=$(head -1 "$TMP/t"); last=$(tail -1 "$TMP/t"); count=$(wc -l <"$TMP/t")
	python3 - "$TMP/ix" "$first" "$last" "$count" "$(basename "$t")" <<'EOF'
import re, sys
ix, first, last, count, name = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
lines = [l for l in open(ix) if l.startswith("index ")]
b = e = None
est = 0
for l in lines:
    m = re.search(r"~(\d+) events(?:, \[(-?\d+), (-?\d+)\])?", l)
    est += int(m.group(1))
    if m.group(2):
        b = int(m.group(2)) if b is None else min(b, int(m.group(2)))
        e = int(m.group(3)) if e is None else max(e, int(m.group(3)))
ok = b is not None and b <= first and e >= last and abs(est - count) <= count * 0.25
print(("ok" if ok else "not ok") + f" index {name}: range [{b}, {e}] holds the events' [{first}, {last}], estimate {est} for {count} events")
EOF
}
for t in "$D"/ctf/lttng-ust-discard "$D"/ctf/wk-heartbeat-u "$D"/ftrace/kvm-v7-zstd.dat "$D"/ftrace/funcs-v6.dat; do
	[ -e "$t" ] && index_vs_read "$t"
done

# LTTng's index/*.idx files are cross-checked against the packet headers when
# the packet index is built: `traceio check` is clean on a trace whose index
# agrees, and warns (a problem, exit 1) naming the file, field and entry when
# one entry's timestamp_end is changed; the packet headers are used either way
M=$B/2/succeed/multi-domains
if [ -d "$M/ust/index" ]; then
	"$TIO" check "$M" >"$TMP/chk" 2>&1 && ok "idx: check agrees with LTTng's index files of multi-domains" ||
		notok "idx: check on multi-domains" "$(tail -5 "$TMP/chk")"
	cp -r "$M" "$TMP/md"
	idx=$TMP/md/ust/index/ust2_channel_0.idx
	# entry 0 starts at byte 16; its timestamp_end is the u64 at +32
	python3 - "$idx" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[16 + 32 + 7] ^= 1
open(p, "wb").write(b)
PY
	"$TIO" check "$TMP/md" >"$TMP/chk" 2>&1
	rc=$?
	if [ $rc -ne 0 ] && grep -q "ust2_channel_0: LTTng's index of this file says timestamp_end .* at entry 0, the packet headers" "$TMP/chk"; then
		ok "idx: a changed timestamp_end in index/ust2_channel_0.idx is reported by check (exit $rc)"
	else
		notok "idx: changed index entry not reported (exit $rc)" "$(head -8 "$TMP/chk")"
	fi
	"$TIO" print "$M" >"$TMP/a" 2>&1
	"$TIO" print --begin 0 "$TMP/md" >"$TMP/b" 2>&1
	sed -i "s|$TMP/md|$M|g" "$TMP/b"
	cmp -s "$TMP/a" "$TMP/b" && ok "idx: the packet headers are used (same text)" || notok "idx: text changed" "$(diff "$TMP/a" "$TMP/b" | head -4)"
fi
