#!/bin/bash
# Reading traces in parts (tio_mux_set_part): example-parts (examples/parts.c,
# public API only) reads each trace in N parts, each part on its own thread
# through its own open and merge, printed by the json sink.  Sorted, the
# lines must be those of `traceio print --style json` (every message once,
# with the same values: discarded counters, packet contexts, clocks carried
# into each part from the index), and the exit status the same; for N = 2,
# 3 and 7, on every suite trace.  Then the traces that can be cut must be
# cut (no part holds everything), and `print -o dummy` and `info --count`
# in parts must print what one thread prints (tests/api/test-threads.sh
# runs them on every suite trace too), and `check` in parts too.
. "$(dirname "$0")/../lib.sh"
EX=$TIO_BUILD/example-parts
B=$PEER/ctf/babeltrace-2.1/ctf-traces
Y=$PEER/ctf/yactfr-iter-data
D=$TIO_TOP/tests/data

if [ ! -x "$EX" ]; then
	notok "example-parts: not built in $TIO_BUILD"
	exit 0
fi

# group NAME TRACE...: each trace (A|B: several inputs at once) in 2, 3, 7 parts
group() {
	local name=$1 n=0 runs=0 bad=() t in parts
	shift
	for t in "$@"; do
		IFS='|' read -ra in <<<"$t"
		[ -e "${in[0]}" ] || continue
		timeout 120 "$TIO" print --style json "${in[@]}" 2>/dev/null | LC_ALL=C sort >"$TMP/whole"
		local rc1=${PIPESTATUS[0]}
		n=$((n + 1))
		for parts in 2 3 7; do
			runs=$((runs + 1))
			timeout 120 "$EX" -t $parts "${in[@]}" 2>"$TMP/parts.err" | LC_ALL=C sort >"$TMP/parts"
			local rc2=${PIPESTATUS[0]}
			if [ $rc1 -ne $rc2 ] || ! cmp -s "$TMP/whole" "$TMP/parts"; then
				bad+=("$t in $parts parts: exit $rc1/$rc2, $(wc -l <"$TMP/whole")/$(wc -l <"$TMP/parts") lines $(diff "$TMP/whole" "$TMP/parts" | head -2 | cut -c1-200)")
			fi
		done
	done
	if [ $n -eq 0 ]; then
		notok "parts $name: no trace found"
	elif [ ${#bad[@]} -eq 0 ]; then
		ok "parts $name: $n traces, $runs reads in parts = the whole read"
	else
		notok "parts $name: ${#bad[@]}/$runs reads in parts differ" "${bad[@]:0:5}"
	fi
}

group "babeltrace CTF 1.8 succeed" "$B"/1/succeed/*/
group "babeltrace CTF 2 succeed" "$B"/2/succeed/*/
group "babeltrace CTF fail" "$B"/1/fail/*/ "$B"/2/fail/*/
group "yactfr ctf-1 pass and fail" "$Y"/ctf-1/pass-*/ "$Y"/ctf-1/fail-*/
group "tests/data/ctf" "$D"/ctf/*/
group "tests/data/ftrace" "$D"/ftrace/*.dat
group "trace.dat samples" "$PEER"/tracedat/samples/*.dat
group "trace.dat converted by trace-cmd" "$PEER"/tracedat/converted-by-trace-cmd-3.1.6/*.dat
group "LTTng 0.x (not cut: part 0 reads it)" "$PEER"/ltt0x/traces/*/
group "several inputs at once" "$D/ctf/wk-heartbeat-u|$D/ctf/lttng-ust-discard" \
	"$D/ftrace/funcs-v6.dat|$D/ftrace/kvm-v7-zstd.dat|$D/ctf/lttng-ust-discard"

# the parts do split: traces of several packets (pages) per stream
split_check() { # TRACE
	local counts
	counts=$("$EX" -t 3 "$1" 2>&1 >/dev/null | sed -n 's/^part [0-9] of 3: \([0-9]*\) messages$/\1/p' | sort -n | tr '\n' ' ')
	set -- $counts
	if [ $# -eq 3 ] && [ "$2" -gt 0 ]; then
		ok "parts: $(basename "$T") is cut in 3 parts of $1, $2 and $3 messages"
	else
		notok "parts: $(basename "$T") not cut in 3" "messages per part: $counts"
	fi
}
for T in "$D"/ctf/lttng-ust-discard "$D"/ftrace/funcs-v6.dat; do
	[ -e "$T" ] && split_check "$T"
done

# the CLI: print -o dummy and info --count in parts (TIO_THREADS=3) print and
# exit as one thread does, also on damaged traces (a part that meets an
# error makes it read everything again on one thread)
for cmd in "print -o dummy" "info --count"; do
	bad=()
	n=0
	for t in "$D"/ctf/*/ "$B"/1/fail/*/ "$D"/ftrace/*.dat "$PEER"/tracedat/samples/*.dat; do
		[ -e "$t" ] || continue
		n=$((n + 1))
		# shellcheck disable=SC2086
		TIO_THREADS=1 timeout 120 "$TIO" $cmd "$t" >"$TMP/one" 2>&1
		r1=$?
		# shellcheck disable=SC2086
		TIO_THREADS=3 timeout 120 "$TIO" $cmd "$t" >"$TMP/three" 2>&1
		r3=$?
		if [ $r1 -ne $r3 ] || ! cmp -s "$TMP/one" "$TMP/three"; then
			bad+=("$t: exit $r1/$r3 $(diff "$TMP/one" "$TMP/three" | head -3 | cut -c1-200)")
		fi
	done
	if [ ${#bad[@]} -eq 0 ]; then
		ok "parts: $cmd in 3 parts = one thread (output, errors, exit) on $n traces"
	else
		notok "parts: $cmd in 3 parts differs" "${bad[@]:0:5}"
	fi
done

# several traces at once: `info --count` prints them in the order a whole
# read first sees them, which the merged parts must tell (or, when they
# cannot, read again on one thread): LTTng's kernel + UST session, CTF with
# trace.dat, trace.dat files together, LTTng 0.x with CTF
bad=()
n=0
ltt=$(ls -d "$PEER"/ltt0x/traces/*/ 2>/dev/null | head -1)
for c in "$B/2/succeed/multi-domains" "$D/ftrace/funcs-v6.dat $D/ctf/wk-heartbeat-u" \
	"$D/ftrace/funcs-v6.dat $D/ftrace/funcgraph-v6.dat" "$D/ctf/lttng-ust-discard $D/ctf/lttng-ust-cyg" \
	"$D/ctf/wk-heartbeat-u $D/ctf/lttng-ust-cyg $D/ftrace/funcs-v6.dat" "$ltt $D/ctf/wk-heartbeat-u" \
	"$(echo "$PEER"/tracedat/samples/*.dat)"; do
	# shellcheck disable=SC2086
	set -- $c
	[ -e "$1" ] || continue
	n=$((n + 1))
	# shellcheck disable=SC2086
	TIO_THREADS=1 timeout 120 "$TIO" info --count $c >"$TMP/one" 2>&1
	r1=$?
	# shellcheck disable=SC2086
	TIO_THREADS=3 timeout 120 "$TIO" info --count $c >"$TMP/three" 2>&1
	r3=$?
	if [ $r1 -ne $r3 ] || ! cmp -s "$TMP/one" "$TMP/three"; then
		bad+=("$c: exit $r1/$r3 $(diff "$TMP/one" "$TMP/three" | head -3 | cut -c1-200)")
	fi
done
if [ ${#bad[@]} -eq 0 ]; then
	ok "parts: info --count of several traces in 3 parts = one thread on $n sets"
else
	notok "parts: info --count of several traces in 3 parts differs" "${bad[@]:0:5}"
fi

# check in parts: a clean trace gives the summary alone; a trace whose clock
# goes back across a cut (a trace.dat page moved to the middle of the page
# ahead of it: the pages' times stay in order, so the cut falls between them,
# but the stream's events go back there) must be read again on one thread,
# which lists each event out of order
f=$D/ftrace/funcs-v6.dat
if [ -e "$f" ]; then
	cp "$f" "$TMP/back.dat"
	"$TIO" print --style json "$f" | python3 -c '
import json, struct, sys
pages = {}
for l in sys.stdin:
    o = json.loads(l)
    if o["type"] == "event":
        pages.setdefault((o["stream_id"], o["offset"] // 4096 * 4096), []).append(o["ns"])
cpu0 = sorted(k for k in pages if k[0] == 0)
first, second = cpu0[0], cpu0[1]
mid = (pages[first][0] + pages[first][-1]) // 2  # the second page begins there
delta = pages[second][0] - mid
with open(sys.argv[1], "r+b") as f:
    f.seek(second[1]); ts = struct.unpack("<Q", f.read(8))[0]
    f.seek(second[1]); f.write(struct.pack("<Q", ts - delta))
' "$TMP/back.dat"
	TIO_THREADS=1 "$TIO" check "$TMP/back.dat" >"$TMP/c1" 2>&1
	r1=$?
	TIO_THREADS=3 "$TIO" check "$TMP/back.dat" >"$TMP/c3" 2>&1
	r3=$?
	if [ $r1 -eq 1 ] && [ $r3 -eq 1 ] && cmp -s "$TMP/c1" "$TMP/c3" && grep -q "clock went backwards" "$TMP/c3"; then
		ok "parts: check of a trace.dat whose clock goes back across a cut = one thread ($(grep -c "went backwards" "$TMP/c3") events listed; parts: $("$EX" -t 3 "$TMP/back.dat" 2>&1 >/dev/null | sed -n 's/^part \([0-9]\) of 3: \([0-9]*\) messages$/\1:\2/p' | sort | tr '\n' ' '))"
	else
		notok "parts: check of a clock going back across a cut" "exit $r1/$r3" "$(diff "$TMP/c1" "$TMP/c3" | head -3)" "$(head -3 "$TMP/c3")"
	fi
	TIO_THREADS=3 "$TIO" check "$f" >"$TMP/c3" 2>&1
	r3=$?
	if [ $r3 -eq 0 ] && [ "$(wc -l <"$TMP/c3")" -eq 2 ]; then
		ok "parts: check of a clean trace in 3 parts: its summary"
	else
		notok "parts: check of a clean trace in 3 parts" "exit $r3" "$(head -3 "$TMP/c3")"
	fi
fi


# damaged traces: bytes of the data files of suite traces changed at random
# (a fixed seed: the same mutants every run); each read in 2 and 3 parts
# must still give the whole read's lines (every message once) and fail
# when it fails
python3 - "$TIO" "$EX" "$TMP/mut" "$D/ctf/lttng-ust-discard" "$D/ftrace/funcs-v6.dat" "$D/ctf/wk-heartbeat-u" <<'PYEOF' >"$TMP/mut.out" 2>&1
import os, random, shutil, subprocess, sys
tio, ex, work, srcs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
random.seed(20261126)
runs, bad = 0, []
for it in range(30):
    src = srcs[it % len(srcs)]
    shutil.rmtree(work, ignore_errors=True)
    if os.path.isdir(src):
        shutil.copytree(src, work)
        files = sorted(os.path.join(r, f) for r, _, fs in os.walk(work) for f in fs if f != "metadata" and not f.endswith(".idx"))
        path = work
    else:
        os.makedirs(work)
        path = os.path.join(work, "t.dat")
        shutil.copy(src, path)
        files = [path]
    f = random.choice(files)
    data = bytearray(open(f, "rb").read())
    for _ in range(random.randint(1, 8)):
        data[random.randrange(len(data))] = random.randrange(256)
    open(f, "wb").write(data)
    whole = subprocess.run([tio, "print", "--style", "json", path], capture_output=True, timeout=120)
    for n in (2, 3):
        runs += 1
        p = subprocess.run([ex, "-t", str(n), path], capture_output=True, timeout=120)
        if sorted(whole.stdout.splitlines()) != sorted(p.stdout.splitlines()) or (whole.returncode != 0) != (p.returncode != 0):
            bad.append("mutant %d of %s in %d parts: exit %d/%d, %d/%d lines" % (it, os.path.basename(src), n, whole.returncode, p.returncode, len(whole.stdout.splitlines()), len(p.stdout.splitlines())))
print(runs, len(bad))
for b in bad[:5]:
    print(b)
PYEOF
read -r mruns mbad < <(head -1 "$TMP/mut.out")
if [ "${mruns:-0}" -gt 0 ] && [ "${mbad:-1}" -eq 0 ]; then
	ok "parts: $mruns reads in parts of 30 damaged traces (random bytes changed) = the whole reads"
else
	notok "parts: damaged traces read in parts" "$(head -6 "$TMP/mut.out")"
fi

# print -o dummy reads in parts before it opens the traces itself: a whole
# open's warnings are printed once, as on one thread (a clock offset out of
# range), and a missing input is reported as on one thread
python3 "$TIO_TOP/tests/tools/gen-ctf-clocks.py" bigoffset "$TMP/bigoff" > /dev/null 2>&1
TIO_THREADS=1 "$TIO" print -o dummy "$TMP/bigoff" > "$TMP/w1.out" 2> "$TMP/w1.err"
r1=$?
TIO_THREADS=3 "$TIO" print -o dummy "$TMP/bigoff" > "$TMP/w3.out" 2> "$TMP/w3.err"
r3=$?
TIO_THREADS=3 "$TIO" print -o dummy "$TMP/no-such-trace" > /dev/null 2> "$TMP/m3.err"
rm3=$?
TIO_THREADS=1 "$TIO" print -o dummy "$TMP/no-such-trace" > /dev/null 2> "$TMP/m1.err"
rm1=$?
if [ $r1 -eq $r3 ] && [ "$(grep -c 'warning: .*does not fit' "$TMP/w3.err")" -eq 1 ] && cmp -s "$TMP/w1.err" "$TMP/w3.err" &&
	[ $rm1 -eq $rm3 ] && [ $rm3 -ne 0 ] && cmp -s "$TMP/m1.err" "$TMP/m3.err"; then
	ok "print -o dummy in 3 parts: a whole open's warning printed once, a missing input's error, as on one thread"
else
	notok "print -o dummy in 3 parts: warnings and errors as on one thread" "exit $r1/$r3, $rm1/$rm3" "$(cat "$TMP/w3.err" "$TMP/m3.err")"
fi
