#!/bin/bash
# -F/--filter, -v, --cpu, --pid, --comm (src/filter, src/cli/filter.c):
#  - trace.dat: `traceio print --style trace-cmd OPTS FILE` byte for byte
#    against `trace-cmd report OPTS FILE` on the peer samples and on this
#    project's recordings (every operator, several -F, -v, regexes on event
#    names, missing fields, COMM/CPU, kernel_stack after a kept event, the
#    function graph's peek at filtered records);
#  - CTF: the events kept against babeltrace2's Python bindings with each
#    filter's meaning written as a Python predicate (filter-oracle.py);
#  - error messages with their column; convert -F.
. "$(dirname "$0")/../lib.sh"
S=$PEER/tracedat/samples
D=$TIO_TOP/tests/data/ftrace
HERE=$(dirname "$0")

# cmp_tc NAME FILE OPTS...: traceio and trace-cmd agree (output, or both refuse)
cmp_tc() {
	local n=$1 f=$2
	shift 2
	trace-cmd report "$@" "$f" > "$TMP/exp" 2> "$TMP/exp.err"
	local re=$?
	"$TIO" print --style trace-cmd "$@" "$f" > "$TMP/got" 2> "$TMP/got.err"
	local rg=$?
	if grep -q 'Failed to create event filter\|Only 1 -v' "$TMP/exp.err" "$TMP/exp"; then
		if [ $rg -ne 0 ] && [ -s "$TMP/got.err" ]; then ok "$n: refused by both"; else
			notok "$n: trace-cmd refuses it, traceio exits $rg" "$(head -3 "$TMP/got")"; fi
		return
	fi
	[ $re -eq 0 ] || { notok "$n: trace-cmd failed" "$(head -3 "$TMP/exp.err")"; return; }
	if ! cmp -s "$TMP/exp" "$TMP/got"; then
		tc_again "$TMP/exp" "$@" "$f" # trace-cmd's unstable runs (tests/lib.sh)
		"$TIO" print --style trace-cmd "$@" "$f" > "$TMP/got2" 2> /dev/null
		cmp -s "$TMP/got" "$TMP/got2" || echo "# $n: traceio's output changed between two runs"
	fi
	same "$n ($(wc -l < "$TMP/exp") lines)" "$TMP/exp" "$TMP/got"
}

if ! command -v trace-cmd > /dev/null; then
	notok "trace-cmd is needed (scripts/deps.sh test)"
	exit 0
fi

# every operator, several -F, -v, missing fields, on sched traces
SCHED=(
	"-F sched_switch: prev_pid != 0 && next_comm =~ \"^k\""
	"-F sched_switch: prev_state & 1"
	"-F sched/sched_switch: prev_prio < 120 || next_prio >= 120"
	"-F sched_switch: next_pid <= 100 || next_pid > 3000 && prev_prio == 120"
	"-F sched_switch: prev_comm != \"swapper/0\" && (next_pid <= 100 || !(next_pid > 3000))"
	"-F sched_switch: !prev_pid == 0 && !(next_prio < 100)"
	"-F sched_switch: prev_comm == 'bash' || next_comm == \"sh\""
	"-F sched_switch: prev_comm !~ \"swap\" && next_comm =~ \"^[a-k].*[0-9]$\""
	"-F sched_switch: COMM == \"bash\" || CPU == 2"
	"-F .*: COMM != \"trace-cmd\""
	"-F .*: common_pid == 0 || common_flags ^ 1"
	"-F .*: common_pid % 2 && common_preempt_count >> 1 || common_pid / 1000"
	"-F .*: common_pid * 0 || common_pid - 4 && common_pid | 0 && common_pid + 1"
	"-F .*: common_pid << 1 && common_pid == 0x0b72"
	"-F sched_switch: bogus == 1 || common_pid == 2"
	"-F sched_switch: !(bogus == 1)"
	"-F sched_switch: bogus != 1"
	"-F .*: prev_pid > 0"
	"-F sched"
	"-F SCHED/SCHED_SW.*"
	"-F sched_w.*,sched_switch: common_pid > 100"
	"-F sched_switch -F sched_wakeup: pid > 100 -F cpu_idle: state < 3"
	"-v -F sched_switch: prev_pid == 0"
	"-F sched_switch -v -F sched_switch: prev_state == 0 -F sched_switch: next_pid == 0"
	"-F .* -v -F sched.*: common_pid == 0"
	"-v -v -F sched_switch"
	"-F nosuch_event"
	"-F sched_switch: prev_pid = 3"
	"-F sched_switch: prev_pid > next_pid"
	"-F sched_switch: prev_state & 4 == 4"
	"--cpu 1,3 -F sched_switch: next_prio > 100"
	"-R -F sched_switch: prev_pid != 0"
	"-t -F sched_wakeup"
	"--pid 2930"
	"--comm bash"
	"--comm sshd,bash --pid 1"
	"--comm no_such_task"
)
# several filters per word group above: split the string into -F/-v words
run_set() { # NAME FILE CASES...
	local base=$1 f=$2
	shift 2
	local c i=0
	for c in "$@"; do
		i=$((i + 1))
		local args=() w rest=$c
		# options are separated by " -F ", " -v ", " --cpu "...: split on them
		while [ -n "$rest" ]; do
			case $rest in
			-v\ *) args+=(-v); rest=${rest#-v } ;;
			-R\ *) args+=(-R); rest=${rest#-R } ;;
			-t\ *) args+=(-t); rest=${rest#-t } ;;
			--cpu\ *|--pid\ *|--comm\ *)
				w=${rest%% *}; rest=${rest#* }; args+=("$w" "${rest%% *}")
				case $rest in *\ *) rest=${rest#* } ;; *) rest= ;; esac ;;
			-F\ *)
				rest=${rest#-F }
				local expr=${rest%% -[Fv] *}
				args+=(-F "$expr")
				rest=${rest:${#expr}}; rest=${rest# } ;;
			*) notok "$base: cannot split '$c'"; return ;;
			esac
		done
		cmp_tc "$base #$i ${args[*]}" "$f" "${args[@]}"
	done
}

run_set sched_load "$S/lisa-tests-assets-sched_load-arm64-v6.dat" "${SCHED[@]}"
if ! is_sanitized; then
	run_set arm32-large "$S/lisa-tests-trace-arm32-v6-large.dat" "${SCHED[@]:0:24}"
fi
# this project's recording: kernel_stack records follow the event kept before them
R=$D/filter-stack-v7.dat
run_set recording "$R" "${SCHED[@]:0:12}" \
	"-F sched_process_exec" \
	"-F sched_process_fork: child_pid > 0 -F sched_wakeup: target_cpu == 1" \
	"-F sched_switch -v -F sched_switch: prev_pid == 0" \
	"-F kernel_stack" \
	"-v -F kernel_stack" \
	"-F irq: vec == 9 || irq == 36" \
	"-F sched_process_exit,sched_process_free" \
	"--comm sh" \
	"--cpu 0 -F sched_process_fork"
# pages that lost events: the "EVENTS DROPPED" line goes with the first record after the loss
run_set lossy "$D/lossy-v7-zstd.dat" "-F sched_switch" "-F sys_enter_write,sys_exit_read: common_pid > 0" \
	"-F .*: common_pid != 0" "-v -F sys_exit_write" "--cpu 1 -F .*: common_pid > 100"
# -F with --begin: the events before it that a -F drops teach the trace-cmd style no comm
# (trace-cmd learns comm names only from what it prints)
for f in "$S/lisa-tests-assets-sched_load-arm64-v6.dat" "$D/filter-stack-v7.dat"; do
	for e in 'sched_switch: prev_pid > 3000 || next_prio < 120' '.*: common_pid != 0'; do
		trace-cmd report -t -F "$e" "$f" > "$TMP/full" 2> /dev/null
		# the time of the 40th event line (a comm may hold blanks); stack lines follow their event
		b=$(awk 'match($0, /\] +[0-9]+\.[0-9]+: /) && ++n == 40 { print substr($0, RSTART + 1, RLENGTH - 3); exit }' "$TMP/full" | tr -d ' ')
		awk -v B="$b" 'NR == 1 { print; next }
			match($0, /\] +[0-9]+\.[0-9]+: /) { keep = substr($0, RSTART + 1, RLENGTH - 3) + 0 >= B + 0 }
			keep' "$TMP/full" > "$TMP/exp"
		"$TIO" print -t -F "$e" --begin "$b" "$f" > "$TMP/got" 2>&1
		same "$(basename "$f") -F '$e' --begin $b ($(wc -l < "$TMP/exp") lines)" "$TMP/exp" "$TMP/got"
	done
done

# every other sample and recording: a few filters each
for f in "$S"/*.dat "$PEER"/tracedat/converted-by-trace-cmd-3.1.6/*zstd*.dat "$D"/v7-zstd-small.dat "$D"/kmem-tlb-v7-zstd.dat; do
	[ -f "$f" ] || continue
	is_sanitized && [ "$(stat -c %s "$f")" -gt 2000000 ] && continue
	b=$(basename "$f" .dat)
	run_set "$b" "$f" "-F sched_switch: prev_pid != 0 && next_comm =~ \"^[k-s]\"" \
		"-F .*: common_pid > 1000 -v -F sched_wakeup" "-F .*:COMM != \"trace-cmd\""
done
# other styles on trace.dat: the mux passes over the classes no -F names (tio_filter_wants);
# the events kept are trace-cmd's
for fe in "$S/lisa-tests-assets-sched_load-arm64-v6.dat|sched_load_se,sched_switch: common_pid != 0" \
	"$D/lossy-v7-zstd.dat|sys_exit_read,sched_wakeup: common_pid != 0" \
	"$D/filter-stack-v7.dat|sched_wakeup,sched_switch: common_pid != 0"; do
	f=${fe%%|*}
	for e in 'sched_switch: prev_pid > 100' "${fe#*|}"; do
		trace-cmd report -F "$e" "$f" 2> /dev/null | grep -c '^ *[^ =].*\] [ 0-9.]*: ' > "$TMP/exp"
		"$TIO" print --style json -F "$e" "$f" 2> /dev/null | grep -c '"type":"event"' > "$TMP/got"
		if [ "$(cat "$TMP/exp")" -gt 0 ]; then
			same "json -F '$e' $(basename "$f"): trace-cmd's events ($(cat "$TMP/exp"))" "$TMP/exp" "$TMP/got"
		else
			notok "json -F '$e' $(basename "$f"): trace-cmd keeps nothing (a useless case)"
		fi
	done
done

# the function graph: an entry waits for the next record of its file, even a filtered one
FG=$D/funcgraph-v6.dat
run_set funcgraph "$FG" "-F funcgraph_entry" "-F funcgraph_exit" "-F sched_switch" \
	"-v -F funcgraph_exit" "-F funcgraph_entry,sched_switch" "-F .*: common_pid != 0" "--cpu 1 -F funcgraph_entry"
run_set funcs "$D/funcs-v6.dat" "-F function: ip > 0" "-v -F func_repeats" "-F ftrace/.*: common_pid > 0"

# ---------------------------------------------------------------- CTF: against bt2
ROT=$PEER/ctf/babeltrace-2.1/ctf-traces/1/succeed/lttng-tracefile-rotation
UST=$TIO_TOP/tests/data/ctf/lttng-ust-discard
# json_kept CASE OPTS... TRACE: "CASE ns name" for each event traceio keeps
json_kept() {
	local c=$1
	shift
	"$TIO" print --style json "$@" 2> "$TMP/err" | /usr/bin/python3 -c '
import json, sys
for l in sys.stdin:
    m = json.loads(l)
    if m["type"] == "event":
        print(sys.argv[1], m["ns"], m["event_class"])' "$c" | sort
}
ctf_case() { # CASE TRACE OPTS...
	local c=$1 t=$2
	shift 2
	json_kept "$c" "$@" "$t" > "$TMP/got"
	/usr/bin/python3 "$HERE/filter-oracle.py" "$t" "$c" > "$TMP/exp"
	if [ -s "$TMP/exp" ] || [ "$c" = u1 ]; then
		same "CTF $c $(basename "$t") ${*} ($(wc -l < "$TMP/exp") events)" "$TMP/exp" "$TMP/got"
	else
		notok "CTF $c: the oracle kept nothing (a useless case)"
	fi
}
if /usr/bin/python3 -c 'import bt2' 2> /dev/null; then
	ctf_case k1 "$ROT" -F 'sched_switch: prev_tid != 0 && next_comm =~ "^kwork"'
	ctf_case k2 "$ROT" -F 'sched_switch: prev_state & 1' -F 'sched_wakeup: target_cpu == 2'
	ctf_case k3 "$ROT" -F 'sched_w.*: tid > 1000 || (prio < 20 && !(comm ~ "kworker*"))'
	ctf_case k4 "$ROT" -F 'sched.*' -v -F 'sched_switch: next_tid <= 1000' -F sched_stat_runtime
	ctf_case k5 "$ROT" -F '.*: CPU == 1 && bogus == 3 || prio >= 20'
	ctf_case k6 "$ROT" -F '.*: !(bogus == 3) && CPU != 0'
	ctf_case k7 "$ROT" --cpu 1,3 -F 'sched_switch: prev_comm != "swapper/1"'
	ctf_case k8 "$ROT" --pid 31407
	ctf_case k9 "$ROT" --comm lttng-consumerd
	ctf_case u1 "$UST" -F 'corpus:ints: s8 < 0 && u16 % 3'
	ctf_case u2 "$UST" -F 'corpus:ints: s32 >= 100000 || u8 ^ 7' -F 'corpus/strings: text16 == "t0-i16"'
	ctf_case u3 "$UST" -F 'corpus:enums: state == 500 || flag != 0' -F 'strings: text16 ~ "t1-*"'
	ctf_case u4 "$UST" -F 'corpus: CPU == 1 && s64 == -7046029254386353131'
	ctf_case u5 "$UST" -F 'corpus:.*' -v -F 'corpus:floats,corpus:empty'
else
	notok "babeltrace2's Python bindings are needed (python3-bt2)"
fi

# the babeltrace text style filters the same events as the JSON one
"$TIO" print -F 'sched_switch: next_tid > 3000' "$ROT" 2> /dev/null | grep -c ' sched_switch: ' > "$TMP/n1"
"$TIO" print --style json -F 'sched_switch: next_tid > 3000' "$ROT" 2> /dev/null | grep -c '"event"' > "$TMP/n2"
same "babeltrace style and json keep the same events ($(cat "$TMP/n1"))" "$TMP/n1" "$TMP/n2"

# convert -F: the written trace holds exactly the events kept
"$TIO" convert -q -F 'corpus:ints: u8 & 1' -v -F 'corpus:ints: s16 > 100' -o "$TMP/conv" "$UST" 2> "$TMP/err"
"$TIO" print --style json -F 'corpus:ints: u8 & 1' -v -F 'corpus:ints: s16 > 100' "$UST" 2> /dev/null |
	/usr/bin/python3 -c 'import json,sys; [print(json.loads(l)["ns"]) for l in sys.stdin if "\"event\"" in l]' > "$TMP/exp"
"$TIO" print --style json "$TMP/conv" 2> /dev/null |
	/usr/bin/python3 -c 'import json,sys; [print(json.loads(l)["ns"]) for l in sys.stdin if "\"event\"" in l]' > "$TMP/got"
same "convert -F -v writes the events print -F -v keeps ($(wc -l < "$TMP/exp"))" "$TMP/exp" "$TMP/got"
"$TIO" convert -q --cpu 1 -o "$TMP/conv1.dat" "$S/lisa-tests-assets-sched_load-arm64-v6.dat" 2> "$TMP/err"
trace-cmd report --cpu 1 "$S/lisa-tests-assets-sched_load-arm64-v6.dat" 2> /dev/null | grep -c '\[001\]' > "$TMP/exp"
"$TIO" print "$TMP/conv1.dat" 2> /dev/null | grep -c '\[00[0-9]\]' > "$TMP/got"
same "convert --cpu 1 keeps CPU 1's events only" "$TMP/exp" "$TMP/got"

# --cpu on an LTTng 0.x trace (one tracefile per channel and CPU: channel_CPU)
L=$PEER/ltt0x/traces/trace-15316events_nolost_newformat
"$TIO" print --style json "$L" 2> /dev/null | /usr/bin/python3 -c '
import json, sys
print(sum(1 for l in sys.stdin if json.loads(l)["type"] == "event" and json.loads(l)["stream"].endswith("_1")))' > "$TMP/exp"
"$TIO" print --style json --cpu 1 "$L" 2> /dev/null | grep -c '"type":"event"' > "$TMP/got"
same "LTTng 0.x --cpu 1: the events of the *_1 tracefiles ($(cat "$TMP/exp"))" "$TMP/exp" "$TMP/got"
"$TIO" print --style json -F '.*: CPU == 1' "$L" 2> /dev/null | grep -c '"type":"event"' > "$TMP/got"
same "LTTng 0.x -F '.*: CPU == 1' keeps what --cpu 1 keeps" "$TMP/exp" "$TMP/got"

# errors: a message naming the column, exit status 2
err_case() { # EXPECTED_MESSAGE EXPR
	"$TIO" print -o dummy -F "$2" "$UST" > /dev/null 2> "$TMP/err"
	local rc=$?
	if [ $rc -eq 2 ] && grep -qF -- "$1" "$TMP/err"; then ok "error: $2 -> $1"; else
		notok "error: $2 (exit $rc)" "expected: $1" "got: $(cat "$TMP/err")"; fi
}
err_case "-F: unknown operator '=>' at 28" 'corpus:ints: s8 == 1 && u8 => 3'
err_case "-F: unknown operator '=' at 17" 'corpus:ints: s8 = 1'
err_case "-F: unterminated string at 24" 'corpus:strings: str == "abc'
err_case "-F: expected ')' for the '(' at 14, found end of filter at 32" 'corpus:ints: (s8 == 1 || u8 > 2'
err_case "-F: expected a field, '!' or '(', found '&&' at 25" 'corpus:ints: s8 == 1 && && u8 > 2'
err_case "-F: illegal comparison for a string (==, !=, =~, !~, ~) at 21" 'corpus:strings: str < "b"'
err_case "-F: '=~' needs a string at 17" 'corpus:ints: s8 =~ 3'
err_case "-F: bad regular expression \"a[\" at 21" 'corpus:strings: str =~ "a["'
err_case "-F: comparing field 's8' with field 'u8' is not supported (nor by trace-cmd) at 19" 'corpus:ints: s8 > u8'
err_case "-F: expected '&&', '||' or the end, found '==' (compare a field, not an expression) at 21" 'corpus:ints: s8 & 4 == 4'
err_case "-F: no event matches 'nosuch' at 1" 'nosuch: x == 1'
err_case "-F: expected 'EVENTS:' before the expression at 4" 's8 == 1'
err_case "-F: bad number '12abc' at 20" 'corpus:ints: s8 == 12abc'
err_case "-F: unexpected character '@' at 17" 'corpus:ints: s8 @ 1'
if ! "$TIO" print -v -v -F corpus:ints "$UST" > /dev/null 2> "$TMP/err" && grep -q 'only one -v' "$TMP/err"; then
	ok "-v twice refused (as trace-cmd)"
else
	notok "-v twice" "$(cat "$TMP/err")"
fi
# -v with no -F after it is still babeltrace's --verbose
if "$TIO" print -v "$UST" 2> /dev/null | head -1 | grep -q 'packet_size\|content_size\|cpu_id'; then
	ok "-v without -F stays --verbose"
else
	notok "-v without -F stays --verbose"
fi
