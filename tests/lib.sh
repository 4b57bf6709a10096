# Helpers for test scripts.  Each check prints "ok NAME" or "not ok NAME"
# followed by what differed; tests/run.sh counts them.
: "${TIO:?run through tests/run.sh}"
PEER=$TIO_SHARED/peer-data
export TZ=UTC LC_ALL=C
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

ok() { echo "ok $1"; }
notok() { echo "not ok $1"; shift; [ $# -gt 0 ] && printf '%s\n' "$@"; }

# same NAME FILE_EXPECTED FILE_GOT: compare two files line by line.
same() {
	if cmp -s "$2" "$3"; then ok "$1"; else
		notok "$1"; diff "$2" "$3" | head -10
	fi
}

# report_same NAME FILE: `traceio print` of FILE, plain, -t, -R and -l, against
# `trace-cmd report` (one check each, named "NAME report[-t|-R|-l] (N lines)").
report_same() {
	local v
	for v in "" -t -R -l; do
		trace-cmd report $v -i "$2" > "$TMP/exp" 2> /dev/null
		"$TIO" print $v "$2" > "$TMP/got" 2> "$TMP/err"
		cmp -s "$TMP/exp" "$TMP/got" || tc_again "$TMP/exp" $v -i "$2"
		same "$1 report$v ($(wc -l < "$TMP/exp") lines)" "$TMP/exp" "$TMP/got"
	done
}

# written_back_same NAME EXP TRACE: TRACE written by traceio as trace.dat v6 and v7 reports
# (trace-cmd report) as EXP says.
written_back_same() {
	local v
	for v in 6 7; do
		rm -f "$TMP/wb.dat"
		"$TIO" convert -q --to tracedat --file-version $v -o "$TMP/wb.dat" "$3" 2> "$TMP/err"
		trace-cmd report -i "$TMP/wb.dat" > "$TMP/wb.txt" 2> /dev/null
		same "$1 written back as v$v: the same report" "$2" "$TMP/wb.txt"
	done
}

# from_time_same NAME ALL TRACE K: `print -t --begin B` of TRACE against the lines of ALL (its
# whole `-t` text) whose time is B or later, B the time of the line 1/K of the way in.
from_time_same() {
	local all=$2 b
	b=$(awk 'NR == 2 + int(('"$(wc -l < "$all")"' - 1) / '"$4"') { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { print substr($i, 1, length($i) - 1); exit } }' "$all")
	python3 -c 'import re, sys
b = sys.argv[1].split(".")
bn = int(b[0]) * 10**9 + int(b[1])
for l in open(sys.argv[2]):
    m = re.search(r" (\d+)\.(\d{9}):", l)
    if not m or int(m.group(1)) * 10**9 + int(m.group(2)) >= bn:
        sys.stdout.write(l)' "$b" "$all" > "$TMP/from_exp"
	"$TIO" print -t --begin "$b" "$3" > "$TMP/from_got" 2> "$TMP/err"
	same "$1 --begin $b: the events from it ($(($(wc -l < "$TMP/from_exp") - 1)))" "$TMP/from_exp" "$TMP/from_got"
}

# tc_again EXP ARGS...: after traceio's output differed from EXP, the output
# of `trace-cmd report ARGS`, run trace-cmd twice more; when both runs agree
# with each other and not with EXP, EXP was an unstable run and is replaced
# by theirs.  trace-cmd 3.1.6 reads past a 0-byte buffer on v6 files whose
# saved trace clock is empty (tracecmd_parse_trace_clock's strtok_r: three
# peer samples; valgrind shows it), and about 1 run in 300 then prints raw
# time stamps instead of seconds.
tc_again() {
	local e=$1
	shift
	trace-cmd report "$@" > "$TMP/tc_a" 2> /dev/null
	trace-cmd report "$@" > "$TMP/tc_b" 2> /dev/null
	if cmp -s "$TMP/tc_a" "$TMP/tc_b" && ! cmp -s "$TMP/tc_a" "$e"; then
		echo "# trace-cmd report $*: its first run differed from two more (an unstable run): theirs kept"
		cp "$TMP/tc_a" "$e"
	fi
}

# is_sanitized: true when $TIO was built with ASan (slow: skip big inputs).
is_sanitized() { case "$TIO_BUILD" in *asan*) return 0;; esac; return 1; }

# NS: the wrapper to record with (`$NS trace-cmd record ...`):
# ../shared/tools/tc-ns.sh, as this VM refuses the function tracer.
NS=$TIO_SHARED/tools/tc-ns.sh
[ -x "$NS" ] || NS=

# why_no_recording: prints why trace-cmd cannot record here, nothing when it
# can (root, tracefs mounted or mountable, a private mount namespace for
# tc-ns.sh, no other trace-cmd recording, not the slow sanitizer build).  Only a trace-cmd that uses tracefs counts:
# `trace-cmd report` and the like, which the other build's pass runs at the
# same time, read files (counting them skipped recordings in some runs).
why_no_recording() {
	local t=/sys/kernel/tracing
	command -v trace-cmd > /dev/null || { echo "no trace-cmd"; return; }
	[ "$(id -u)" = 0 ] || { echo "not root"; return; }
	mountpoint -q $t || mount -t tracefs nodev $t 2> /dev/null || { echo "no tracefs"; return; }
	# ../shared/tools/tc-ns.sh records in a private mount namespace: not in a chroot whose root
	# is no mount point, nor in most containers
	unshare -m --propagation private true 2> /dev/null || { echo "no private mount namespace (unshare -m)"; return; }
	if ps -eo stat=,args= | awk '$1 !~ /Z/ && $2 ~ /(^|\/)trace-cmd$/ &&
		$3 ~ /^(record|start|stream|extract|profile|agent|listen|stop|restart|reset|set|clear)$/ {f=1} END {exit !f}'; then
		echo "another trace-cmd is recording"
		return
	fi
	is_sanitized && echo "sanitizer build (slow)"
}
