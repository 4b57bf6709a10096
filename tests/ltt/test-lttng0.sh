#!/bin/bash
# LTTng 0.x traces (LTT trace format 2.5 and 2.6): the LTTV text dump of the
# peers' trace matched line for line, every peer trace read to the end with
# the event count its name says, and damaged copies rejected with file,
# offset and field named while every good block is still read.
. "$(dirname "$0")/../lib.sh"

L=$PEER/ltt0x
T15=$L/traces/trace-15316events_nolost_newformat
T26=$L/traces/trace-2.6
EXP=$L/expected-text/trace-15316events_nolost_newformat.txt
if [ ! -d "$T15" ]; then
	notok lttng0-peer-data "no $T15"
	exit 0
fi

# info_count TRACE: "events: N" and "discarded events: N" of traceio info.
info_field() { sed -n "s/^  $2: \([0-9]*\).*/\1/p" "$1" | head -1; }

# --- the LTTV dump -----------------------------------------------------------
# The expected file names the trace traceset/trace_15316events_nolost_newformat;
# its producer also rewrote two recorded strings ("/tmp/trace1", where the
# trace was written, and "protocol.txt"): our output keeps the bytes of the
# trace, so those two are rewritten the same way before comparing.
"$TIO" print --lttv-trace-path traceset/trace_15316events_nolost_newformat "$T15" >"$TMP/lttv.txt" 2>"$TMP/lttv.err"
rc=$?
if [ $rc -eq 0 ] && [ ! -s "$TMP/lttv.err" ]; then ok lttv-dump-runs; else notok lttv-dump-runs "rc=$rc" "$(head -3 "$TMP/lttv.err")"; fi
same_lines=$(diff --unchanged-line-format='=' --old-line-format='' --new-line-format='' "$EXP" "$TMP/lttv.txt" | wc -c)
total=$(wc -l <"$EXP")
echo "# lines identical to the LTTV dump before rewriting the two strings: $same_lines of $total"
if [ "$same_lines" -ge $((total - 23)) ]; then ok lttv-dump-raw-lines; else notok lttv-dump-raw-lines "$same_lines of $total"; fi
sed 's|/tmp/trace1|traceset/trace_15316events_nolost_newformat|g; s|/usr/lib/xorg/protocol\.txt|/usr/lib/xorg/protocol|' \
	"$TMP/lttv.txt" >"$TMP/lttv-norm.txt"
same lttv-dump-identical "$EXP" "$TMP/lttv-norm.txt"

# the lttv style is the default for LTTng 0.x traces; the trace path is printed as given
"$TIO" print "$T15" 2>/dev/null | sed -n 3p >"$TMP/first.txt"
if grep -q "^metadata.core_marker_id: 13589.759412127 ($T15/metadata_0), 0, 0, , , 0, 0x0, MODE_UNKNOWN { channel = \"vm_state\"" "$TMP/first.txt"; then
	ok lttv-default-style
else
	notok lttv-default-style "$(cat "$TMP/first.txt")"
fi

# --- every peer trace to the end ---------------------------------------------
for t in "$L"/traces/*/; do
	t=${t%/}
	n=$(basename "$t")
	"$TIO" info --count "$t" >"$TMP/info.txt" 2>"$TMP/info.err"
	rc=$?
	ev=$(info_field "$TMP/info.txt" events)
	lost=$(info_field "$TMP/info.txt" "discarded events")
	want=$(echo "$n" | sed -n 's/.*-\([0-9]*\)events.*/\1/p')
	want_lost=
	case "$n" in *nolost*) want_lost=0 ;; esac
	echo "# $n: $ev events, $lost discarded (rc $rc)"
	if [ $rc -ne 0 ] || [ -s "$TMP/info.err" ]; then
		notok "read-$n" "rc=$rc" "$(head -3 "$TMP/info.err")"
	elif [ -n "$want" ] && [ "$ev" != "$want" ]; then
		notok "read-$n" "$ev events, the name says $want"
	elif [ -n "$want_lost" ] && [ "$lost" != "$want_lost" ]; then
		notok "read-$n" "$lost events lost, the name says none"
	elif [ -z "$ev" ] || [ "$ev" -eq 0 ]; then
		notok "read-$n" "no events"
	else
		ok "read-$n"
	fi
done
# trace-2.6: two CPUs, one block per tracefile; the count is the one every
# block's data_size accounts for exactly (no byte left over, no error)
"$TIO" info --count "$T26" >"$TMP/info26.txt" 2>&1
if grep -q '^  events: 219558$' "$TMP/info26.txt"; then ok trace-2.6-count; else notok trace-2.6-count "$(grep events: "$TMP/info26.txt")"; fi

# --- damaged copies ------------------------------------------------------------
# count_ch FILE CHANNEL: events of CHANNEL in an lttv dump
count_ch() { grep -c "^$2\.[a-z_0-9]*: " "$1"; }

"$TIO" print "$T15" >"$TMP/good.txt" 2>/dev/null

# expect_err NAME ERRFILE PATTERN: the error names the file, an offset and a field
expect_err() {
	if grep -Eq "$3" "$2"; then ok "$1"; else notok "$1" "wanted /$3/ in:" "$(head -5 "$2")"; fi
}

# 1. a truncated tracefile: the events before the cut are read, then an error
cp -r "$T15" "$TMP/trunc" && chmod -R u+w "$TMP/trunc"
truncate -s 10000 "$TMP/trunc/kernel_0"
"$TIO" print "$TMP/trunc" >"$TMP/trunc.txt" 2>"$TMP/trunc.err"
rc=$?
[ $rc -eq 1 ] && ok truncated-status || notok truncated-status "rc=$rc"
expect_err truncated-error "$TMP/trunc.err" 'kernel_0@0x34: block header.data_size: .*truncated'
k=$(count_ch "$TMP/trunc.txt" kernel)
full=$(count_ch "$TMP/good.txt" kernel)
echo "# truncated kernel_0: $k of $full kernel events read"
if [ "$k" -gt 500 ] && [ "$k" -lt "$full" ]; then ok truncated-keeps-events; else notok truncated-keeps-events "$k of $full"; fi
others_good=$(grep -vc '^kernel\.' "$TMP/good.txt")
others_trunc=$(grep -vc '^kernel\.' "$TMP/trunc.txt")
[ "$others_good" = "$others_trunc" ] && ok truncated-other-files || notok truncated-other-files "$others_trunc vs $others_good"

# 2. a bit flipped in the magic of vm_state_0's first block: that block is
# skipped, the second one (at 0x40000) is read
cp -r "$T15" "$TMP/magic" && chmod -R u+w "$TMP/magic"
printf '\xee' | dd of="$TMP/magic/vm_state_0" bs=1 seek=16 conv=notrunc 2>/dev/null
"$TIO" print "$TMP/magic" >"$TMP/magic.txt" 2>"$TMP/magic.err"
rc=$?
[ $rc -eq 1 ] && ok magic-status || notok magic-status "rc=$rc"
expect_err magic-error "$TMP/magic.err" 'vm_state_0@0x10: block header.magic_number: .*resumes at 0x40000'
v=$(count_ch "$TMP/magic.txt" vm_state)
echo "# vm_state_0 with its first block damaged: $v of 9560 vm_state events read"
if [ "$v" -gt 0 ] && [ "$v" -lt 9560 ]; then ok magic-keeps-next-block; else notok magic-keeps-next-block "$v"; fi

# 3. an event header turned into an id the metadata does not describe
cp -r "$T15" "$TMP/evid" && chmod -R u+w "$TMP/evid"
printf '\xe0' | dd of="$TMP/evid/fs_0" bs=1 seek=$((0x47)) conv=notrunc 2>/dev/null
"$TIO" print "$TMP/evid" >"$TMP/evid.txt" 2>"$TMP/evid.err"
rc=$?
[ $rc -eq 1 ] && ok event-id-status || notok event-id-status "rc=$rc"
expect_err event-id-error "$TMP/evid.err" 'fs_0@0x44: event header.event_id: id 28 is not described by the metadata of channel fs'
[ "$(grep -vc '^fs\.' "$TMP/evid.txt")" = "$(grep -vc '^fs\.' "$TMP/good.txt")" ] && ok event-id-other-files || notok event-id-other-files

# 4. a block size past the end of the file
cp -r "$T15" "$TMP/sbsize" && chmod -R u+w "$TMP/sbsize"
printf '\xff\xff\xff\x7f' | dd of="$TMP/sbsize/irq_state_0" bs=1 seek=56 conv=notrunc 2>/dev/null
"$TIO" print "$TMP/sbsize" >"$TMP/sbsize.txt" 2>"$TMP/sbsize.err"
rc=$?
[ $rc -eq 1 ] && ok sb-size-status || notok sb-size-status "rc=$rc"
expect_err sb-size-error "$TMP/sbsize.err" 'irq_state_0@0x38: block header.sb_size: 2147483647, but the file has 12288 bytes'
[ "$(count_ch "$TMP/sbsize.txt" irq_state)" = "$(count_ch "$TMP/good.txt" irq_state)" ] && ok sb-size-keeps-events || notok sb-size-keeps-events

# 5. a damaged metadata channel: the trace still opens, errors name the file
cp -r "$T15" "$TMP/meta" && chmod -R u+w "$TMP/meta"
truncate -s 3000 "$TMP/meta/metadata_0"
"$TIO" print "$TMP/meta" >"$TMP/meta.txt" 2>"$TMP/meta.err"
rc=$?
if [ $rc -eq 1 ] && grep -q 'metadata_0@0x' "$TMP/meta.err"; then ok metadata-truncated; else notok metadata-truncated "rc=$rc" "$(head -3 "$TMP/meta.err")"; fi

# 6. random damage: never a crash, a hang or a sanitizer report
seed=1
crashes=0
for i in $(seq 1 ${LTT_FUZZ_ROUNDS:-12}); do
	rm -rf "$TMP/fz"
	cp -r "$T15" "$TMP/fz" && chmod -R u+w "$TMP/fz"
	for f in metadata_0 kernel_0 fs_0 vm_state_0 task_state_0; do
		sz=$(stat -c %s "$TMP/fz/$f")
		for k in 1 2 3 4 5 6; do
			seed=$(((seed * 1103515245 + 12345) % 2147483648))
			off=$((seed % sz))
			seed=$(((seed * 1103515245 + 12345) % 2147483648))
			printf "\\x$(printf %02x $((seed % 256)))" | dd of="$TMP/fz/$f" bs=1 seek=$off conv=notrunc 2>/dev/null
		done
	done
	timeout 60 "$TIO" print "$TMP/fz" >/dev/null 2>"$TMP/fz.err"
	rc=$?
	if [ $rc -gt 1 ]; then
		crashes=$((crashes + 1))
		echo "# round $i: rc=$rc"; head -5 "$TMP/fz.err"
	fi
done
[ $crashes -eq 0 ] && ok random-damage-no-crash || notok random-damage-no-crash "$crashes rounds failed"

# 7. times anywhere in int64 (a 1 Hz clock from 0): an event 2^33 cycles
# back from one whose time wrapped past 2^63 ns made the difference of the
# two overflow int64 (UBSan); it wraps, as the times do
/usr/bin/python3 "$(dirname "$0")/mk-lttng0.py" "$TMP/backns" 64 >/dev/null
python3 - "$TMP/backns" <<'PY'
import struct, sys
d = sys.argv[1]
m = bytearray(open(d + '/metadata_0', 'rb').read())
m[0:8] = struct.pack('<Q', 0)    # start_tsc 0
m[40:48] = struct.pack('<Q', 1)  # start_freq 1 Hz: 2^63 ns is 9.2e9 cycles
open(d + '/metadata_0', 'wb').write(m)
k = bytearray(open(d + '/kernel_0', 'rb').read())
assert k[84 + 3] >> 3 == 29
k[0:8] = struct.pack('<Q', 1 << 34)    # events 1-2 (compact) near 2^34 cycles: past 2^63 ns
k[92:100] = struct.pack('<Q', 1 << 33) # event 3 (full TSC) 2^33 cycles back
open(d + '/kernel_0', 'wb').write(k)
PY
"$TIO" check "$TMP/backns" >"$TMP/backns.txt" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q 'backns/kernel_0@0x54: .* earlier than an event before it' "$TMP/backns.txt"; then ok back-ns-wraps
else notok back-ns-wraps "rc=$rc" "$(head -3 "$TMP/backns.txt")"; fi

# 8. a metadata channel of 200,000 distinct names (100,000 channels, 100,000
# formats of channel kernel; 4 MB): each was looked for among all the ones
# before it, minutes (66 s for the formats alone); now looked up by hash
/usr/bin/python3 "$(dirname "$0")/mk-lttng0.py" "$TMP/names" 32 >/dev/null
python3 - "$TMP/names/metadata_0" <<'PY'
import struct, sys
p = sys.argv[1]
d = bytearray(open(p, 'rb').read())
ev = []
for i in range(200000):
    ch, name = (b'c%d' % i, b'n') if i % 2 else (b'kernel', b'n%d' % i)
    ev.append(struct.pack('<I', 1 << 27) + ch + b'\0' + name + b'\0\0')  # core_marker_format, empty format
data = b''.join(ev)
sb = 68 + len(data)
h = bytearray(d[:68])
struct.pack_into('<II', h, 52, 0, sb)  # lost_size 0 (format 2.3), sb_size
open(p, 'wb').write(d + h + data)
PY
timeout 30 "$TIO" info "$TMP/names" >"$TMP/names.txt" 2>"$TMP/names.err"
rc=$?
if [ $rc -eq 0 ] && grep -q 'irq_entry' "$TMP/names.txt"; then ok metadata-names-linear
else notok metadata-names-linear "rc=$rc" "$(head -3 "$TMP/names.err")"; fi
