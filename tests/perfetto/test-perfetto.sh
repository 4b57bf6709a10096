#!/bin/bash
# traceio convert --to perfetto (src/perfetto/), read by protoc, the peer:
#  - every output decodes with Debian's protoc and Perfetto's own schema
#    (../shared/perfetto/perfetto_trace.proto) with nothing on stderr and no
#    unknown field (protoc prints those as numbers), and to the same text
#    with the repository's subset (proto/perfetto_subset.proto); the dense
#    generic events (FtraceEvent fields 65536 on) are decoded as Perfetto's
#    trace_processor does, by the descriptors the trace carries:
#    tests/tools/perfetto-dense-schema.py decodes them (protoc, Debian's
#    descriptor.proto) into a copy of each schema, which must then leave no
#    field unknown;
#  - tests/tools/cmp-perfetto.py checks the decoded text against
#    `traceio print --style json` of the input: every event once at the same
#    ns (typed FtraceEvent, GenericFtraceEvent or TrackEvent), per CPU the
#    sched_switch sequence (pids, comms, prios, states), every field of the
#    typed messages, the debug annotations of track events, generic events'
#    fields, statedump threads in ProcessTrees, discarded events;
#  - on trace.dat (tests/data and the peer samples), LTTng kernel CTF 1.8
#    and CTF 2 (babeltrace's lttng-tracefile-rotation), kernel + UST with
#    discarded kernel events (multi-domains), LTTng-UST (tests/data: discard
#    mode, cyg-profile slices) and LTT 0.x;
#  - three golden decoded outputs (tests/perfetto/golden, reviewed by hand);
#  - refusals: an existing OUT without --force (OUT unchanged), an
#    unwritable output directory (nothing left; not as root), a truncated
#    input (error, exit 1).
. "$(dirname "$0")/../lib.sh"
command -v protoc >/dev/null || { notok "protoc installed" "install it: scripts/deps.sh test"; exit 0; }
PY=/usr/bin/python3
CMP=$TIO_TOP/tests/tools/cmp-perfetto.py
PROTO=$TIO_SHARED/perfetto
GOLD=$TIO_TOP/tests/perfetto/golden
ROT=$PEER/ctf/babeltrace-2.1/ctf-traces

DENSE=$TIO_TOP/tests/tools/perfetto-dense-schema.py

# decode PFTRACE [SCHEMA-DIR [SCHEMA]] > TEXT: with the schema, then again with the copy of it in
# which FtraceEvent has the dense generic events the trace describes ($TMP/dense/dense.json: their map)
decode() {
	local dir=${2:-$PROTO} sch=${3:-perfetto_trace.proto}
	protoc --proto_path="$dir" --decode=perfetto.protos.Trace "$sch" <"$1" >"$TMP/dec0.txt" || return 1
	rm -rf "$TMP/dense" && $PY "$DENSE" "$TMP/dec0.txt" "$dir/$sch" "$TMP/dense" || return 1
	protoc --proto_path="$TMP/dense" --decode=perfetto.protos.Trace "$sch" <"$1"
}

# check NAME CMP-OPTIONS INPUT [CONVERT OPTIONS...]: convert, decode, compare
check() {
	local name=$1 opt=$2 in=$3; shift 3
	local out=$TMP/out.pftrace
	rm -f "$out"
	if ! "$TIO" convert -q --to perfetto "$@" -o "$out" "$in" 2>"$TMP/conv.err"; then
		notok "$name: convert failed" "$(head -3 "$TMP/conv.err")"; return 1
	fi
	if ! decode "$out" >"$TMP/dec.txt" 2>"$TMP/dec.err" || [ -s "$TMP/dec.err" ]; then
		notok "$name: protoc --decode" "$(head -3 "$TMP/dec.err" | cut -c1-300)"; return 1
	fi
	if grep -qE '^ *[0-9]+( \{|:)' "$TMP/dec.txt"; then
		notok "$name: unknown fields" "$(grep -m3 -E '^ *[0-9]+( \{|:)' "$TMP/dec.txt")"; return 1
	fi
	cp "$TMP/dense/dense.json" "$TMP/dense.json"
	# the repository's subset of the schema reads it the same
	decode "$out" "$TIO_TOP/proto" perfetto_subset.proto >"$TMP/sub.txt" 2>&1
	if ! cmp -s "$TMP/dec.txt" "$TMP/sub.txt"; then
		notok "$name: proto/perfetto_subset.proto decodes it differently" "$(diff "$TMP/dec.txt" "$TMP/sub.txt" | head -5)"; return 1
	fi
	local a pa=() # print takes the same --begin/--end; --names is cmp-perfetto.py's
	while [ $# -gt 0 ]; do
		a=$1; shift
		case $a in -n) opt="$opt --names=$1"; shift;; *) pa+=("$a");; esac
	done
	"$TIO" print --style json "${pa[@]}" "$in" >"$TMP/in.json" 2>/dev/null
	if ! $PY "$CMP" "$TMP/dec.txt" "$TMP/in.json" $opt --dense="$TMP/dense.json" >"$TMP/cmp" 2>&1; then
		notok "$name: output != input" "$(head -8 "$TMP/cmp" | cut -c1-400)"; return 1
	fi
	ok "$name: $(head -1 "$TMP/cmp"), $(stat -c %s "$out") bytes"
}

for f in "$TIO_TOP"/tests/data/ftrace/*.dat "$PEER"/tracedat/samples/*.dat; do
	check "trace.dat $(basename "$f")" "" "$f"
done
check "LTTng kernel CTF 1.8 lttng-tracefile-rotation" --lttng "$ROT/1/succeed/lttng-tracefile-rotation/kernel"
check "LTTng kernel CTF 2 lttng-tracefile-rotation" --lttng "$ROT/2/succeed/lttng-tracefile-rotation/kernel"
check "LTTng kernel, --begin/--end and --names" --lttng "$ROT/1/succeed/lttng-tracefile-rotation/kernel" \
	-b 1571261795.6 -e 1571261795.9 -n sched_switch,sched_waking,sched_process_fork
if check "LTTng kernel + UST in one output (multi-domains: 728 kernel events discarded)" --lttng "$ROT/1/succeed/multi-domains"; then
	if grep -q 'lost_events: true' "$TMP/dec.txt" && grep -q 'track_event {' "$TMP/dec.txt"; then
		ok "multi-domains: a lost_events bundle, kernel bundles and UST track events"
	else
		notok "multi-domains: a lost_events bundle, kernel bundles and UST track events"
	fi
fi
check "LTTng-UST discard mode (discarded events)" "" "$TIO_TOP/tests/data/ctf/lttng-ust-discard"
check "LTTng-UST 2.0 wk-heartbeat-u" "" "$TIO_TOP/tests/data/ctf/wk-heartbeat-u"
if check "LTTng-UST cyg-profile slices" "" "$TIO_TOP/tests/data/ctf/lttng-ust-cyg"; then
	# every call is a slice: as many begins as ends, on one track per thread
	if grep -q '483 slice begins, 483 ends' "$TMP/cmp" && [ "$(grep -c 'thread {' "$TMP/dec.txt")" = 3 ]; then
		ok "LTTng-UST cyg-profile: 483 slices on 3 thread tracks"
	else
		notok "LTTng-UST cyg-profile: slices / thread tracks" "$(head -1 "$TMP/cmp")" "$(grep -c 'thread {' "$TMP/dec.txt") thread tracks"
	fi
fi
# LTTng kernel events with pid/tid/procname contexts (no such recording here: the cyg-profile
# trace rewritten as CTF by traceio, its environment saying domain = "kernel"): generic
# kernel events, the thread in FtraceEvent.pid and each thread in a ProcessTree
if "$TIO" convert -q --to ctf -o "$TMP/kctx" "$TIO_TOP/tests/data/ctf/lttng-ust-cyg" 2>/dev/null &&
	sed -i 's/domain = "ust";/domain = "kernel";/' "$TMP/kctx/metadata" && grep -q 'domain = "kernel"' "$TMP/kctx/metadata"; then
	if check "LTTng kernel events with pid/tid/procname contexts" --lttng "$TMP/kctx"; then
		if [ "$(grep -c 'process_tree {' "$TMP/dec.txt")" = 3 ] && ! grep -q 'track_event {' "$TMP/dec.txt"; then
			ok "kernel contexts: 3 threads in ProcessTrees, no track events"
		else
			notok "kernel contexts: 3 threads in ProcessTrees, no track events" "$(grep -c 'process_tree {' "$TMP/dec.txt")"
		fi
	fi
else
	notok "cyg-profile trace rewritten as a kernel CTF trace"
fi
# a kernel event class the dense form cannot hold (a variant member: babeltrace's
# meta-variant-reserved-keywords rewritten as a kernel CTF trace): a GenericFtraceEvent
if "$TIO" convert -q --to ctf -o "$TMP/kvar" "$ROT/1/succeed/meta-variant-reserved-keywords" 2>/dev/null &&
	printf 'env {\n\tdomain = "kernel";\n};\n' >>"$TMP/kvar/metadata"; then
	if check "LTTng kernel event with a variant: GenericFtraceEvent" --lttng "$TMP/kvar"; then
		if grep -q 'generic {' "$TMP/dec.txt" && ! grep -q 'generic_event_descriptors' "$TMP/dec.txt"; then
			ok "variant member: GenericFtraceEvent, no descriptor"
		else
			notok "variant member: GenericFtraceEvent, no descriptor" "$(grep -c 'generic {' "$TMP/dec.txt")"
		fi
	fi
else
	notok "meta-variant-reserved-keywords rewritten as a kernel CTF trace"
fi
# odd CTF traces of babeltrace's suites (no clock, no packet context, variants, discarded
# events without times, CTF 2's own field classes): user-space events
for t in 1/succeed/smalltrace 1/succeed/no-packet-context 1/succeed/meta-variant-reserved-keywords \
	1/succeed/array-align-elem 1/succeed/ev-disc-no-ts-begin-end 1/succeed/debug-info 2/succeed/fl-bm; do
	[ -d "$ROT/$t" ] && check "babeltrace suite ${t%%/*}/${t##*/}" "" "$ROT/$t"
done
check "LTT 0.x trace-15316events_nolost_newformat" --ltt "$PEER/ltt0x/traces/trace-15316events_nolost_newformat"

# golden decoded outputs (reviewed by hand): one per kind of source
gold() { # NAME GOLDEN INPUT [OPTIONS...]
	local name=$1 g=$GOLD/$2 in=$3; shift 3
	rm -f "$TMP/g.pftrace"
	"$TIO" convert -q --to perfetto "$@" -o "$TMP/g.pftrace" "$in" 2>"$TMP/g.err" &&
		decode "$TMP/g.pftrace" >"$TMP/g.txt" 2>>"$TMP/g.err"
	xz -dc "$g" >"$TMP/g.want"
	if cmp -s "$TMP/g.want" "$TMP/g.txt"; then
		ok "golden $name ($(grep -c '^packet' "$TMP/g.txt") packets)"
	else
		notok "golden $name" "$(head -3 "$TMP/g.err")" "$(diff "$TMP/g.want" "$TMP/g.txt" | head -10)"
	fi
}
gold "trace.dat funcgraph-v6" funcgraph-v6.txt.xz "$TIO_TOP/tests/data/ftrace/funcgraph-v6.dat"
gold "LTTng kernel rotation, first 7 ms" lttng-kernel-rotation.txt.xz "$ROT/1/succeed/lttng-tracefile-rotation/kernel" -e 1571261795.530
gold "LTTng-UST cyg-profile" lttng-ust-cyg.txt.xz "$TIO_TOP/tests/data/ctf/lttng-ust-cyg"

# the output name chooses the writer; an existing OUT is kept without --force
in=$TIO_TOP/tests/data/ftrace/funcs-v6.dat
echo keep >"$TMP/exists.pftrace"
if "$TIO" convert -q -o "$TMP/exists.pftrace" "$in" 2>"$TMP/e.err"; then
	notok "existing OUT refused"
elif [ "$(cat "$TMP/exists.pftrace")" = keep ] && grep -q 'already exists' "$TMP/e.err"; then
	ok "existing OUT refused and kept: $(head -1 "$TMP/e.err")"
else
	notok "existing OUT refused and kept" "$(head -2 "$TMP/e.err")"
fi
if "$TIO" convert -q -f -o "$TMP/exists.pftrace" "$in" 2>"$TMP/e.err" && decode "$TMP/exists.pftrace" | grep -q 'ftrace_events {'; then
	ok "*.pftrace picks the perfetto writer; --force replaces OUT"
else
	notok "*.pftrace picks the perfetto writer; --force replaces OUT" "$(head -2 "$TMP/e.err")"
fi
mkdir -p "$TMP/ro" && chmod 555 "$TMP/ro"
if [ "$(id -u)" != 0 ]; then
	if "$TIO" convert -q --to perfetto -o "$TMP/ro/x.pftrace" "$in" 2>"$TMP/e.err"; then
		notok "unwritable output directory refused"
	elif [ -z "$(ls -A "$TMP/ro")" ]; then
		ok "unwritable output directory refused, nothing left: $(head -1 "$TMP/e.err")"
	else
		notok "unwritable output directory: files left" "$(ls "$TMP/ro")"
	fi
fi
# a damaged input: the error is reported, the events read are written, exit status 1
head -c 30000 "$in" >"$TMP/cut.dat"
"$TIO" convert -q --to perfetto -o "$TMP/cut.pftrace" "$TMP/cut.dat" >/dev/null 2>"$TMP/e.err"
rc=$?
if [ $rc -ne 0 ] && [ -s "$TMP/e.err" ] && { [ ! -e "$TMP/cut.pftrace" ] || decode "$TMP/cut.pftrace" >/dev/null 2>&1; }; then
	ok "truncated trace.dat: exit $rc, $(head -1 "$TMP/e.err" | cut -c1-120)"
else
	notok "truncated trace.dat" "exit $rc" "$(head -2 "$TMP/e.err")"
fi
