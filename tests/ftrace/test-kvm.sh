#!/bin/bash
# libtraceevent's kvm plugin (kvm_exit, kvm_entry, kvm_emulate_insn,
# kvm_nested_vmexit(_inject), the kvmmmu page roles, is_writable_pte) as
# trace-cmd 3.1.6 prints it: `traceio print` vs `trace-cmd report`, -t, -R.
#  - the committed fixture tests/data/ftrace/kvm-v7-zstd.dat (always);
#  - when this machine can (trace-cmd, root, tracefs, /dev/kvm, no other
#    trace-cmd running, not the sanitizer build): tests/tools/kvm-guest.c
#    built and recorded (v7 default and v6), then the v6 recording's
#    trace_marker records rewritten by tests/tools/kvm-records.py into kvm
#    records of every exit reason, role bit, instruction length (also with
#    older kernels' formats, and byte-swapped to big-endian).
. "$TIO_TOP/tests/lib.sh"
D=$TIO_TOP/tests/data/ftrace
T=/sys/kernel/tracing

expected() { if [ -f "$1.xz" ]; then xz -dc "$1.xz"; else cat "$1"; fi; }

# events NAME < report: how many lines of event NAME
events() { awk -v n="$1:" '{ for (i = 2; i <= NF; i++) if ($(i - 1) ~ /^[0-9]+\.[0-9]+:$/) { if ($i == n) c++; break } } END { print c + 0 }'; }
# distinct TEXT after "NAME: " (reason NAME, role text, instruction bytes ...)
distinct() { grep -o " $1: .*" | sed 's/ rip .*//; s/ root .*//' | sort -u | wc -l; }

# reasons < report: distinct exit reason names of kvm_exit lines (unknown ones not counted)
reasons() { grep -o ' kvm_exit: *reason [A-Z_0-9]*' | sed 's/.* //' | grep -v '^UNKNOWN' | sort -u | wc -l; }

# at_least NAME N M: ok when N >= M
at_least() { if [ "$2" -ge "$3" ]; then ok "$1 ($2 >= $3)"; else notok "$1 ($2 < $3)"; fi; }

# compare NAME FILE: print, -t, -R vs trace-cmd report (live)
compare() { report_same "kvm $1" "$2"; }

# the fixture: real records of a kvm-guest run on this project's VM, and
# marker records rewritten into the rest (tests/data/ftrace/ORIGIN)
F=$D/kvm-v7-zstd
for v in "" -t -R; do
	expected "$F.report$v.txt" > "$TMP/exp"
	"$TIO" print $v "$F.dat" > "$TMP/got" 2> "$TMP/err"
	same "kvm fixture report$v ($(wc -l < "$TMP/exp") lines)" "$TMP/exp" "$TMP/got"
done
expected "$F.report.txt" > "$TMP/rep"
at_least "kvm fixture: kvm_exit lines" "$(events kvm_exit < "$TMP/rep")" 236
# every name of the plugin's tables: 91 SVM, 45 VMX
at_least "kvm fixture: kvm_exit reason names" "$(reasons < "$TMP/rep")" 136
at_least "kvm fixture: distinct kvm_exit texts" "$(distinct kvm_exit < "$TMP/rep")" 220
at_least "kvm fixture: distinct kvm_mmu_get_page roles" "$(distinct kvm_mmu_get_page < "$TMP/rep")" 60
at_least "kvm fixture: distinct kvm_emulate_insn texts" "$(distinct kvm_emulate_insn < "$TMP/rep")" 100
for ev in kvm_entry kvm_nested_vmexit kvm_nested_vmexit_inject kvm_mmu_sync_page kvm_mmu_unsync_page \
	kvm_mmu_prepare_zap_page fast_page_fault; do
	at_least "kvm fixture: $ev lines" "$(events $ev < "$TMP/rep")" 4
done

skip() { echo "ok live kvm recording # skip $1"; exit 0; }
[ -c /dev/kvm ] || skip "no /dev/kvm"
why=$(why_no_recording)
[ -z "$why" ] || skip "$why"
command -v cc > /dev/null || skip "no C compiler"
command -v python3 > /dev/null || skip "no python3"
G=$TMP/kvm-guest
if ! cc -O2 -Wall -o "$G" "$TIO_TOP/tests/tools/kvm-guest.c" 2> "$TMP/cc.log"; then
	notok "kvm-guest builds" "$(head -5 "$TMP/cc.log")"
	exit 0
fi
"$G" -q > "$TMP/run.log" 2>&1 || skip "kvm-guest does not run on this host: $(tail -1 "$TMP/run.log")"

# default (v7 zstd) and v6 with 2 x 200 markers to rewrite
$NS trace-cmd record -o "$TMP/k7.dat" -e kvm -e kvmmmu "$G" -q > "$TMP/rec.log" 2>&1
[ -s "$TMP/k7.dat" ] || { notok "kvm v7 recorded" "$(tail -3 "$TMP/rec.log")"; exit 0; }
compare v7 "$TMP/k7.dat"
$NS trace-cmd record --file-version 6 -o "$TMP/k6.dat" -e kvm -e kvmmmu "$G" -q -m 200 > "$TMP/rec.log" 2>&1
[ -s "$TMP/k6.dat" ] || { notok "kvm v6 recorded" "$(tail -3 "$TMP/rec.log")"; exit 0; }
compare v6 "$TMP/k6.dat"

# what the recordings hold: hosts with hardware virtualization exit to KVM
# (kvm_exit); PVM hosts such as this project's VM never fire kvm_exit and
# emulate the guest's kernel mode instead (kvm_emulate_insn)
trace-cmd report -i "$TMP/k7.dat" > "$TMP/rep" 2> /dev/null
for ev in kvm_exit kvm_entry kvm_emulate_insn kvm_pio kvm_mmio kvm_userspace_exit kvm_mmu_get_page \
	kvm_mmu_sync_page kvm_mmu_unsync_page kvm_mmu_prepare_zap_page; do
	printf '%s=%s ' $ev "$(events $ev < "$TMP/rep")"
done > "$TMP/counts"
echo "# live v7: $(cat "$TMP/counts")"
at_least "kvm live: kvm_pio" "$(events kvm_pio < "$TMP/rep")" 5
at_least "kvm live: kvm_mmio" "$(events kvm_mmio < "$TMP/rep")" 4
at_least "kvm live: kvm_userspace_exit" "$(events kvm_userspace_exit < "$TMP/rep")" 8
at_least "kvm live: kvm_mmu_get_page" "$(events kvm_mmu_get_page < "$TMP/rep")" 4
if [ "$(events kvm_exit < "$TMP/rep")" -gt 0 ]; then
	at_least "kvm live: kvm_exit" "$(events kvm_exit < "$TMP/rep")" 10
	at_least "kvm live: distinct kvm_exit reasons" "$(reasons < "$TMP/rep")" 4
else
	at_least "kvm live (no kvm_exit: emulating host): kvm_emulate_insn" "$(events kvm_emulate_insn < "$TMP/rep")" 100
	at_least "kvm live: distinct kvm_emulate_insn texts" "$(distinct kvm_emulate_insn < "$TMP/rep")" 50
	at_least "kvm live: failed emulations" "$(grep -c 'kvm_emulate_insn: .* FAIL$' "$TMP/rep")" 1
fi

# every exit reason, role bit, instruction length... in rewritten markers
R=$TIO_TOP/tests/tools/kvm-records.py
if python3 "$R" "$TMP/k6.dat" "$TMP/syn.dat" > "$TMP/rw.log" 2>&1; then
	ok "kvm rewritten: $(cat "$TMP/rw.log")"
	compare rewritten "$TMP/syn.dat"
	trace-cmd report -i "$TMP/syn.dat" > "$TMP/rep" 2> /dev/null
	at_least "kvm rewritten: kvm_exit reason names" "$(reasons < "$TMP/rep")" 136
	at_least "kvm rewritten: distinct kvm_mmu_get_page roles" "$(distinct kvm_mmu_get_page < "$TMP/rep")" 60
	if python3 "$TIO_TOP/tests/tools/tracedat-swap.py" "$TMP/syn.dat" "$TMP/synbe.dat" 2> "$TMP/swap.err" &&
		[ ! -s "$TMP/swap.err" ]; then
		compare "rewritten big-endian" "$TMP/synbe.dat"
		at_least "kvm rewritten big-endian: role words" \
			"$("$TIO" print "$TMP/synbe.dat" 2> /dev/null | grep -c 'kvm_mmu_[a-z_]*page: .*WORD: ')" 60
	else
		notok "kvm rewritten big-endian" "$(head -3 "$TMP/swap.err")"
	fi
else
	notok "kvm rewritten" "$(tail -3 "$TMP/rw.log")"
fi
if python3 "$R" --old "$TMP/k6.dat" "$TMP/old.dat" > "$TMP/rw.log" 2>&1; then
	compare "rewritten, older formats" "$TMP/old.dat"
else
	notok "kvm rewritten, older formats" "$(tail -3 "$TMP/rw.log")"
fi
# several inputs: one instruction buffer for the whole report
for v in "" -t; do
	trace-cmd report $v -i "$TMP/syn.dat" -i "$TMP/k7.dat" > "$TMP/exp" 2> /dev/null
	"$TIO" print $v "$TMP/syn.dat" "$TMP/k7.dat" > "$TMP/got" 2> "$TMP/err"
	same "kvm two inputs report$v ($(wc -l < "$TMP/exp") lines)" "$TMP/exp" "$TMP/got"
done
