#!/bin/bash
# `traceio convert` options of the LTT writers (--byte-order, --block-size,
# --arch for ltt; --arch-size, --alignment, --tsc-bits for lttng0): the output
# has the layout asked for (trace header fields read back by `info`, byte
# order of the first tracefile), holds the same events as with the defaults,
# reads without a problem (`check`); an option given to a writer that has no
# such option, or a bad value, is a usage error that leaves nothing.
. "$(dirname "$0")/../lib.sh"
CMP="python3 $TIO_TOP/tests/tools/cmp-matrix.py"
L0=$PEER/ltt0x/traces/trace-15316events_nolost_newformat
python3 "$TIO_TOP/tests/ltt/mk-lttnew.py" "$TMP/lttnew" little ILP32 >/dev/null 2>&1

# same_events NAME A B: both outputs hold the same events, and B reads clean
same_events() {
	"$TIO" print --style json "$2" >"$TMP/a.json" 2>&1
	"$TIO" print --style json "$3" >"$TMP/b.json" 2>&1
	local r
	if ! r=$($CMP "$TMP/a.json" "$TMP/b.json") || [ "$r" != identical ]; then
		notok "$1 same events" "$r"
	elif ! "$TIO" check "$3" >"$TMP/check" 2>&1; then
		notok "$1 same events" "$(head -3 "$TMP/check")"
	else
		ok "$1 same events ($(grep -c '"type":"event"' "$TMP/b.json") events)"
	fi
}
# has_env NAME OUT KEY=VALUE...: `info` shows these header fields
has_env() {
	local name=$1 out=$2 kv miss=
	shift 2
	"$TIO" info --count "$out" >"$TMP/info" 2>&1
	for kv in "$@"; do
		grep -qx "  env ${kv%%=*} = ${kv#*=}" "$TMP/info" || miss="$miss $kv"
	done
	if [ -z "$miss" ]; then ok "$name header"; else notok "$name header" "missing:$miss" "$(grep env "$TMP/info")"; fi
}
# first8 FILE: its first 8 bytes in hex, and reversed
first8() { od -A n -t x1 -N 8 "$1" | tr -d ' \n'; }
rev8() { first8 "$1" | sed 's/../& /g' | tr ' ' '\n' | tac | tr -d '\n'; }

# lttng0 (the 2008 layout)
if [ -d "$L0" ]; then
	"$TIO" convert -q --to lttng0 -o "$TMP/l0-def" "$L0"
	if "$TIO" convert -q --to lttng0 --byte-order big --arch-size 4 --alignment 4 --tsc-bits 32 --block-size 4096 \
		-o "$TMP/l0-opt" "$L0" 2>"$TMP/err"; then
		has_env "lttng0 options" "$TMP/l0-opt" arch_size=4 alignment=4 has_heartbeat=1 block_size=4096
		# the first block starts with the 64-bit TSC of its first event
		if [ "$(rev8 "$TMP/l0-opt/cpu_0")" = "$(first8 "$TMP/l0-def/cpu_0")" ]; then
			ok "lttng0 options big endian"
		else
			notok "lttng0 options big endian" "$(first8 "$TMP/l0-opt/cpu_0") vs $(first8 "$TMP/l0-def/cpu_0")"
		fi
		same_events "lttng0 options" "$TMP/l0-def" "$TMP/l0-opt"
	else
		notok "lttng0 options" "$(head -3 "$TMP/err")"
	fi
else
	notok "lttng0 options: peer trace $L0 missing"
fi

# ltt (the new LTT format)
"$TIO" convert -q --to ltt -o "$TMP/lt-def" "$TMP/lttnew"
if "$TIO" convert -q --to ltt --byte-order big --arch LP64 --block-size 4096 -o "$TMP/lt-opt" "$TMP/lttnew" 2>"$TMP/err"; then
	has_env "ltt options" "$TMP/lt-opt" 'endian="big"' 'ltt_block_size=4096' 'arch_size="LP64"'
	same_events "ltt options" "$TMP/lt-def" "$TMP/lt-opt"
else
	notok "ltt options" "$(head -3 "$TMP/err")"
fi

# usage errors: exit status 2, a message naming the option, no output
usage() {
	local name=$1 want=$2
	shift 2
	rm -rf "$TMP/bad"
	"$TIO" convert -q "$@" -o "$TMP/bad" "$TMP/lttnew" >/dev/null 2>"$TMP/err"
	local rc=$?
	if [ $rc = 2 ] && grep -q -- "$want" "$TMP/err" && [ ! -e "$TMP/bad" ] && [ -z "$(ls -d "$TMP"/bad.tmp* 2>/dev/null)" ]; then
		ok "usage: $name"
	else
		notok "usage: $name" "exit $rc: $(head -2 "$TMP/err")"
	fi
}
usage "--tsc-bits for ctf" "--tsc-bits is for --to lttng0" --to ctf --tsc-bits 32
usage "--arch for lttng0" "--arch is for --to ltt" --to lttng0 --arch LP64
usage "--byte-order for tracedat" "--byte-order is for --to ltt,lttng0" --to tracedat --byte-order big
usage "bad --alignment" "alignment '3' is not" --to lttng0 --alignment 3
usage "bad --block-size" "block-size '10' is not in" --to ltt --block-size 10

# several traces: OUT is the writer's temporary directory renamed, made as mkdir makes one
# (the umask's permissions), not with mkdtemp's 0700 that kept other users out (before 2026-11-28)
S=$PEER/tracedat/samples
rm -rf "$TMP/sev"
if "$TIO" convert -q --to ctf -o "$TMP/sev" "$S/lisa-trappy-tests-trace-arm32-v6.dat" "$S/igt-tests-trace-x86_64-i915-v6.dat" 2>"$TMP/err"; then
	mode=$(stat -c %a "$TMP/sev") want=$(printf '%o' $((0777 & ~$(umask))))
	if [ "$mode" = "$want" ] && [ "$(ls -d "$TMP"/sev/*/ | wc -l)" = 2 ]; then
		ok "ctf, two traces: OUT's mode $mode (umask $(umask))"
	else
		notok "ctf, two traces: OUT's mode" "$mode, want $want" "$(ls "$TMP/sev")"
	fi
else
	notok "ctf, two traces" "$(head -3 "$TMP/err")"
fi

# a fleet's layout, hosts/<host>/trace.dat: each trace's directory is its path below the
# inputs' directory (before 2026-11-28: trace.dat and trace1), and babeltrace2 names the
# traces so and reads each one's events
rm -rf "$TMP/hosts" "$TMP/hostsout"
mkdir -p "$TMP/hosts/web1" "$TMP/hosts/web2"
ln -s "$S/lisa-trappy-tests-trace-arm32-v6.dat" "$TMP/hosts/web1/trace.dat"
ln -s "$S/igt-tests-trace-x86_64-i915-v6.dat" "$TMP/hosts/web2/trace.dat"
if "$TIO" convert -q --to ctf -o "$TMP/hostsout" "$TMP"/hosts/*/trace.dat 2>"$TMP/err"; then
	dirs=$(cd "$TMP/hostsout" && find . -name metadata | sort | tr '\n' ' ')
	got=$(TZ=UTC LC_ALL=C babeltrace2 -f trace "$TMP/hostsout" 2>/dev/null | sed -n 's/^\[[^]]*\] ([^)]*) \(web[12]\/trace\.dat\).*/\1/p' | sort | uniq -c | awk '{print $2 "=" $1}' | tr '\n' ' ')
	want="web1/trace.dat=$("$TIO" info --count "$TMP/hosts/web1/trace.dat" | awk '/^  events:/ {print $2}') web2/trace.dat=$("$TIO" info --count "$TMP/hosts/web2/trace.dat" | awk '/^  events:/ {print $2}') "
	if [ "$dirs" = "./web1/trace.dat/metadata ./web2/trace.dat/metadata " ] && [ "$got" = "$want" ]; then
		ok "ctf, hosts/*/trace.dat: OUT/web1/trace.dat, OUT/web2/trace.dat; babeltrace2: $got"
	else
		notok "ctf, hosts/*/trace.dat: traces named by host" "directories: $dirs" "babeltrace2: $got" "want: $want"
	fi
else
	notok "ctf, hosts/*/trace.dat" "$(head -3 "$TMP/err")"
fi
rm -rf "$TMP/hosts" "$TMP/hostsout"

# 27 inputs (26 hosts, one of them twice): each name compared with the names found before it
# (each name was found again for every later trace, recursively: 2^k calls, 8.8 s at 21
# inputs and twice as long with each more), trace<k> for the repeat
rm -rf "$TMP/hosts" "$TMP/hostsout"
for i in $(seq 26); do mkdir -p "$TMP/hosts/h$i" && ln -s "$S/lisa-trappy-tests-trace-arm32-v6.dat" "$TMP/hosts/h$i/trace.dat"; done
if timeout 120 "$TIO" convert -q --to ctf -o "$TMP/hostsout" "$TMP"/hosts/h*/trace.dat "$TMP/hosts/h1/trace.dat" 2>"$TMP/err"; then
	n=$(find "$TMP/hostsout" -name metadata | wc -l)
	if [ "$n" = 27 ] && [ -f "$TMP/hostsout/h26/trace.dat/metadata" ] && [ -f "$TMP/hostsout/trace26/metadata" ]; then
		ok "ctf, 27 inputs (one twice): 27 traces, h26/trace.dat and trace26 for the repeat"
	else
		notok "ctf, 27 inputs: trace directories" "$n traces: $(ls "$TMP/hostsout" | head -30 | tr '\n' ' ')"
	fi
else
	notok "ctf, 27 inputs" "exit $? (124: more than 120 s)" "$(head -3 "$TMP/err")"
fi
rm -rf "$TMP/hosts" "$TMP/hostsout"
