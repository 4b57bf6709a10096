#!/bin/bash
# Big-endian trace.dat files.  No real one is around, so
# tests/tools/tracedat-swap.py turns little-endian v6 files into what a
# big-endian machine would have written (endian byte 1, every number
# swapped, event headers re-encoded, record fields swapped per their formats,
# bprint arguments per their printk formats).  With trace-cmd installed:
#  - the swapper: `trace-cmd report` (also -t, -R) of the copy prints what it
#    prints for the original (libtraceevent swaps a foreign-endian file's
#    numbers);
#  - the reader: `traceio print` (-t, -R) of the copy = `trace-cmd report` of
#    the copy; `traceio info` succeeds, its summary = `dump --summary`, its
#    counts = the lines of `report -t`.
# lisa-trappy arm32 and rtapp have an empty trace_clock with which trace-cmd
# 3.1.6 prints what heap garbage decides (see test-multi.sh): their copies are
# compared with the committed trace-cmd output of the originals instead.
# A fresh v6 recording with a buffer instance is added when this machine can
# record (as test-live.sh: root, tracefs, no other trace-cmd, no sanitizer).
. "$TIO_TOP/tests/lib.sh"
SWAP=$TIO_TOP/tests/tools/tracedat-swap.py
CMP=$TIO_TOP/tests/tools/cmp-info-report.py
S=$PEER/tracedat/samples
E=$PEER/tracedat/expected-trace-cmd-3.1.6
F=$TIO_TOP/tests/data/ftrace
T=/sys/kernel/tracing

# summary INFO-OUTPUT: the lines trace-cmd's summary has, the file name left out
summary() { awk '/^ Tracing meta data/{p=1; print ""; print " Tracing meta data in file F:"; next} p && /^  [a-z]/{exit} p' "$1"; }

# swap NAME IN [SWAPPER-OPTIONS]: $TMP/NAME.be.dat, nothing left unswapped,
# endian byte 1
swap() {
	if python3 "$SWAP" "${@:3}" "$2" "$TMP/$1.be.dat" 2> "$TMP/swap.err" && [ ! -s "$TMP/swap.err" ] &&
		[ "$(od -An -tu1 -j12 -N1 "$TMP/$1.be.dat" | tr -d ' ')" = 1 ]; then
		ok "bigendian $1 swapped"
	else
		notok "bigendian $1 swapped" "$(head -5 "$TMP/swap.err")"
		return 1
	fi
}

# info NAME [COUNTS]: traceio info of the copy succeeds; COUNTS=1: its
# counts = the lines of report -t ($TMP/rep)
info() {
	if ! (cd "$TMP" && "$TIO" info --count "$1.be.dat") > "$TMP/info" 2> "$TMP/err"; then
		notok "bigendian $1 info" "$(head -3 "$TMP/err")"
		return 1
	fi
	ok "bigendian $1 info"
	[ "${2:-1}" = 1 ] || return 0
	if python3 "$CMP" "$TMP/info" "$TMP/rep" > "$TMP/diff"; then
		ok "bigendian $1 info counts = report -t"
	else
		notok "bigendian $1 info counts = report -t" "$(head -5 "$TMP/diff")"
	fi
}

# live NAME LE-FILE [CHECKS] [EXCLUDE-FROM-R]: swap and compare with trace-cmd;
# CHECKS: "summary" (info's summary = dump --summary of the copy), "counts"
# (info's counts = report -t); EXCLUDE-FROM-R: a grep pattern of -R lines
# that differ between byte orders by nature (kept in the traceio comparison).
# PAGES=N: only the first N pages of each CPU (of the original too)
live() {
	local name=$1 le=$2 v be=$TMP/$1.be.dat
	if [ -n "${PAGES:-}" ]; then
		le=$TMP/$name.le.dat
		swap "$name" "$2" --pages "$PAGES" --cut-original "$le" || return
	else
		swap "$name" "$le" || return
	fi
	for v in "" -t -R; do
		trace-cmd report $v -i "$le" > "$TMP/le" 2> /dev/null
		trace-cmd report $v -i "$be" > "$TMP/be" 2> /dev/null
		"$TIO" print $v "$be" > "$TMP/got" 2> "$TMP/err"
		if [ "$(wc -l < "$TMP/le")" -lt 2 ]; then
			notok "bigendian $name trace-cmd report$v of the original" "$(wc -l < "$TMP/le") lines"
			continue
		fi
		if [ "$v" = -R ] && [ -n "${4:-}" ]; then
			grep -v -- "$4" "$TMP/le" > "$TMP/le2"; grep -v -- "$4" "$TMP/be" > "$TMP/be2"
			same "bigendian $name swapper: trace-cmd report$v big = little ($(wc -l < "$TMP/le2") lines, '$4' lines left out)" \
				"$TMP/le2" "$TMP/be2"
		else
			same "bigendian $name swapper: trace-cmd report$v big = little ($(wc -l < "$TMP/le") lines)" \
				"$TMP/le" "$TMP/be"
		fi
		same "bigendian $name print$v = trace-cmd report$v ($(wc -l < "$TMP/be") lines)" "$TMP/be" "$TMP/got"
	done
	trace-cmd report -t -i "$be" > "$TMP/rep" 2> /dev/null
	case " ${3:-} " in *" counts "*) info "$name" 1;; *) info "$name" 0;; esac || return
	if [[ " ${3:-} " == *" summary "* ]]; then
		(cd "$TMP" && trace-cmd dump --summary "$name.be.dat") 2> /dev/null > "$TMP/exp"
		summary "$TMP/exp" > "$TMP/exp2"
		summary "$TMP/info" > "$TMP/sum"
		same "bigendian $name info = dump --summary" "$TMP/exp2" "$TMP/sum"
	fi
}

# committed NAME: the copy of samples/NAME.dat against the committed trace-cmd
# output of the original (expected-trace-cmd-3.1.6)
committed() {
	local name=$1 v opt
	swap "$name" "$S/$name.dat" || return
	for v in report report-R report-t; do
		case $v in report) opt=;; report-t) opt=-t;; report-R) opt=-R;; esac
		if [ -f "$E/$name.$v.txt.xz" ]; then xz -dc "$E/$name.$v.txt.xz"; else cat "$E/$name.$v.txt"; fi > "$TMP/exp"
		"$TIO" print $opt "$TMP/$name.be.dat" > "$TMP/got" 2> "$TMP/err"
		same "bigendian $name print $opt = committed trace-cmd $v of the original ($(wc -l < "$TMP/exp") lines)" \
			"$TMP/exp" "$TMP/got"
	done
	cp "$TMP/exp" "$TMP/rep" # report -t
	info "$name" || return
	sed 's/0\t\[Little endian\]/1\t[Big endian]/' "$E/$name.dump-summary.txt" > "$TMP/exp"
	summary "$TMP/exp" > "$TMP/exp2"
	summary "$TMP/info" > "$TMP/sum"
	same "bigendian $name info = committed dump --summary (big endian)" "$TMP/exp2" "$TMP/sum"
}

committed lisa-trappy-tests-trace-arm32-v6
committed lisa-tutorial-example_rtapp-arm64-v6

command -v trace-cmd > /dev/null || { ok "bigendian trace-cmd comparisons # skip no trace-cmd"; exit 0; }
live igt-x86_64 "$S/igt-tests-trace-x86_64-i915-v6.dat" "summary counts"
# 32-bit long, 10 pages of each of its 8 CPUs (9325 lines, 3 of them bprint)
PAGES=10 live arm32-large "$S/lisa-tests-trace-arm32-v6-large.dat" "summary counts"
# raw_data -R lines show the bytes after the record (the next event header,
# swapped in the copy): they differ between byte orders, traceio still prints
# them as trace-cmd does.  (funcs-v6.dat, a rewritten recording, has a
# TRACECLOCK option and a stored clock list of size 0: an empty clock line in
# both; the function graph view swallows returns, so report -t has fewer
# lines than records.)
live funcs "$F/funcs-v6.dat" "summary counts" 'raw_data:'
live funcgraph "$F/funcgraph-v6.dat" summary

# control: the copy read as little-endian again (endian byte 0) is not the
# original, so the comparisons above do see the swapped numbers
cp "$TMP/igt-x86_64.be.dat" "$TMP/ctl.dat"
printf '\0' | dd of="$TMP/ctl.dat" bs=1 seek=12 conv=notrunc 2> /dev/null
trace-cmd report -i "$S/igt-tests-trace-x86_64-i915-v6.dat" > "$TMP/le" 2> /dev/null
trace-cmd report -i "$TMP/ctl.dat" > "$TMP/be" 2> /dev/null
"$TIO" print "$TMP/ctl.dat" > "$TMP/got" 2> /dev/null
if cmp -s "$TMP/le" "$TMP/be" || cmp -s "$TMP/le" "$TMP/got"; then
	notok "bigendian control: the copy read as little-endian differs from the original"
else
	ok "bigendian control: the copy read as little-endian differs from the original"
fi

# several inputs, big- and little-endian mixed
for v in "" -t -R; do
	trace-cmd report $v -i "$TMP/funcgraph.be.dat" -i "$F/funcs-v6.dat" > "$TMP/exp" 2> /dev/null
	"$TIO" print $v "$TMP/funcgraph.be.dat" "$F/funcs-v6.dat" > "$TMP/got" 2> "$TMP/err"
	same "bigendian big + little inputs report$v ($(wc -l < "$TMP/exp") lines)" "$TMP/exp" "$TMP/got"
done

# a fresh v6 recording with a buffer instance, a trace_marker record longer
# than 112 bytes (a type_len 0 event header) and tcp_probe records of a
# loopback connection (%pISpc: the sockaddr bytes are not swapped, and
# libtraceevent reads their family in the host's byte order)
rskip() { ok "bigendian live v6 recording # skip $1"; exit 0; }
why=$(why_no_recording)
[ -z "$why" ] || rskip "$why"
M=traceio-bigendian-$(printf '%0150d' 6)
cat > "$TMP/wl.sh" <<WL
ls -R /usr/share/doc > /dev/null
echo $M > $T/trace_marker
python3 -c '
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
c = socket.create_connection(s.getsockname()); a, _ = s.accept()
c.sendall(b"x" * 50); a.recv(100); a.sendall(b"y" * 20); c.recv(100); c.close(); a.close()
'
WL
INSTANCES=tio_be_a $NS trace-cmd record --file-version 6 -o "$TMP/rec.dat" -b 4096 -e sched -e irq \
	-e tcp:tcp_probe -B tio_be_a -e timer sh "$TMP/wl.sh" > "$TMP/rec.log" 2>&1
rmdir $T/instances/tio_be_a 2> /dev/null || true
if [ ! -s "$TMP/rec.dat" ]; then
	notok "bigendian live v6 recorded" "$(tail -3 "$TMP/rec.log")"
	exit 0
fi
live recording "$TMP/rec.dat" "summary counts"
trace-cmd report -i "$TMP/recording.be.dat" > "$TMP/be" 2> /dev/null
if grep -q "^tio_be_a: " "$TMP/be" && grep -q "$M" "$TMP/be" && grep -q "tcp_probe:.*src=127.0.0.1:" "$TMP/be"; then
	ok "bigendian recording has instance records, the long marker, tcp_probe addresses"
else
	notok "bigendian recording has instance records, the long marker, tcp_probe addresses"
fi
