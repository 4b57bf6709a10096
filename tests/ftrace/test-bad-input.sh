#!/bin/bash
# Damaged trace.dat files: an error naming file, offset and section, no crash
# or hang; good pages before the damage are still printed.
. "$TIO_TOP/tests/lib.sh"
F=$TIO_TOP/tests/data/ftrace/v7-zstd-small.dat
size=$(stat -c %s "$F")

# truncated in the middle of the flyrecord data (v6: the CPU data comes last;
# v7 keeps its options at the end, so a truncated v7 file has no buffer list)
V6=$PEER/tracedat/samples/lisa-trappy-tests-trace-arm32-v6.dat
head -c $(( $(stat -c %s "$V6") - 10000)) "$V6" > "$TMP/trunc.dat"
timeout 20 "$TIO" print "$TMP/trunc.dat" > "$TMP/out" 2> "$TMP/err"; rc=$?
if [ $rc -lt 128 ] && [ $rc -ne 124 ] && [ "$(wc -l < "$TMP/out")" -gt 100 ]; then ok "truncated data: good pages printed"
else notok "truncated data: good pages printed" "rc=$rc lines=$(wc -l < "$TMP/out")" "$(head -3 "$TMP/err")"; fi

# truncated in the metadata
head -c 4000 "$F" > "$TMP/meta.dat"
timeout 20 "$TIO" print "$TMP/meta.dat" > "$TMP/out" 2> "$TMP/err"; rc=$?
if [ $rc -eq 1 ] && grep -q 'meta.dat@0x[0-9a-f]*: section' "$TMP/err"; then ok "truncated metadata: error names file, offset, section"
else notok "truncated metadata: error names file, offset, section" "rc=$rc" "$(cat "$TMP/err")"; fi

# unknown compression
python3 - "$F" "$TMP/comp.dat" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
i = d.index(b'zstd\0')
d[i:i+4] = b'lzma'
open(sys.argv[2], 'wb').write(d)
PY
timeout 20 "$TIO" print "$TMP/comp.dat" > "$TMP/out" 2> "$TMP/err"; rc=$?
if [ $rc -eq 1 ] && grep -q "unknown compression 'lzma'" "$TMP/err"; then ok "unknown compression"
else notok "unknown compression" "rc=$rc" "$(cat "$TMP/err")"; fi

# random byte flips in the data: never a crash or a hang
for seed in 1 2 3 4 5; do
	python3 - "$F" "$TMP/flip.dat" $seed <<'PY'
import sys, random
d = bytearray(open(sys.argv[1], 'rb').read())
r = random.Random(int(sys.argv[3]))
for _ in range(50):
    i = r.randrange(len(d) // 2, len(d))
    d[i] = r.randrange(256)
open(sys.argv[2], 'wb').write(d)
PY
	timeout 30 "$TIO" print "$TMP/flip.dat" > /dev/null 2> "$TMP/err"; rc=$?
	if [ $rc -lt 128 ] && [ $rc -ne 124 ]; then ok "byte flips $seed"; else notok "byte flips $seed" "rc=$rc" "$(tail -3 "$TMP/err")"; fi
done

# header_page offsets are read from every page: one past the page size is an
# error naming the field, not a read 400 MB past the page
F6=$TIO_TOP/tests/data/ftrace/funcs-v6.dat
python3 - "$F6" "$TMP/hpdata.dat" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
old, new = b'char data;\toffset:16;\tsize:4080;', b'char data;\toffset:400000000size:'
assert len(old) == len(new) and d.count(old) == 1
i = d.index(old)
d[i:i + len(old)] = new
open(sys.argv[2], 'wb').write(d)
PY
timeout 20 "$TIO" print "$TMP/hpdata.dat" > "$TMP/out" 2> "$TMP/err"; rc=$?
if [ $rc -eq 1 ] && grep -q 'hpdata.dat@0x26: section header_page: field data: offset 400000000 is outside the 4096-byte pages' "$TMP/err"; then
	ok "header_page data offset past the page"
else notok "header_page data offset past the page" "rc=$rc" "$(head -3 "$TMP/err")"; fi

# common_type at offset 2^32-1 (offset + size wraps in 32 bits): every record
# is too short for it, none is read there
python3 - "$F6" "$TMP/ctype.dat" <<'PY'
import sys
d = open(sys.argv[1], 'rb').read()
old, new = b'common_type;\toffset:0;\tsize:2;', b'common_type;\toffset:-1;size:2;'
assert len(old) == len(new) and old in d
open(sys.argv[2], 'wb').write(d.replace(old, new))
PY
timeout 20 "$TIO" print "$TMP/ctype.dat" > "$TMP/out" 2> "$TMP/err"; rc=$?
if [ $rc -eq 1 ] && grep -q 'ctype.dat@0x[0-9a-f]*: section flyrecord cpu [01]: record shorter than its common fields' "$TMP/err" &&
   ! grep -v 'record shorter than its common fields' "$TMP/err" | grep -q .; then
	ok "common_type offset 2^32-1: records too short"
else notok "common_type offset 2^32-1: records too short" "rc=$rc" "$(grep -v 'record shorter' "$TMP/err" | head -3)"; fi

# static arrays of the format text ([N], size:N) give a value per element in
# every record: 2^31 - 1 elements twice wrapped the plan's 32-bit value
# count (a heap overflow), and one array of 10^8 took gigabytes and minutes;
# more elements than the page has bytes are an error
python3 - "$F6" "$TMP/arr.dat" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
for old in (b'field:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;',
            b'field:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;'):
    name = old[20:old.index(b';')]
    new = b'field:u8 %s[2147483647];offset:2;size:2147483647;' % name
    new = new.ljust(len(old), b' ')
    assert len(old) == len(new) and old in d
    i = d.index(old)  # the first format's common fields are the trace's
    d[i:i + len(old)] = new
open(sys.argv[2], 'wb').write(d)
PY
timeout 20 "$TIO" print "$TMP/arr.dat" > "$TMP/out" 2> "$TMP/err"; rc=$?
if [ $rc -eq 1 ] && grep -q 'arr.dat@0x1e1: section ftrace events: event format ftrace:wakeup: field common_flags: 2147483647 array elements up to it, more than a 4096-byte page holds' "$TMP/err"; then
	ok "format arrays of 2^31 - 1 elements: an error"
else notok "format arrays of 2^31 - 1 elements: an error" "rc=$rc" "$(head -3 "$TMP/err")"; fi

# a padding record whose length puts the next record at 2^32 - 4: the page
# ends there (as a padding past the commit size does), no read 4 GiB past it
python3 - "$F6" "$TMP/pad.dat" <<'PY'
import sys, struct
d = bytearray(open(sys.argv[1], 'rb').read())
off = struct.unpack_from('<Q', d, d.index(b'flyrecord\0') + 10)[0]  # CPU 0's data
struct.pack_into('<II', d, off + 16, 29, 0xfffffffc - 4)  # its first record
open(sys.argv[2], 'wb').write(d)
PY
"$TIO" print "$F6" | awk '{ print $1, $2, $3 }' > "$TMP/good"
timeout 20 "$TIO" print "$TMP/pad.dat" > "$TMP/out" 2> "$TMP/err"; rc=$?
awk '{ print $1, $2, $3 }' "$TMP/out" > "$TMP/got"
if [ $rc -eq 0 ] && [ "$(wc -l < "$TMP/got")" -gt 100 ] && ! diff "$TMP/good" "$TMP/got" | grep -q '^>'; then
	ok "padding length 2^32 - 8: the page ends, the others are printed"
else notok "padding length 2^32 - 8: the page ends, the others are printed" "rc=$rc" "$(head -3 "$TMP/err")"; fi

# v7: the last options section's DONE option pointing back at that section
# read it again and again (1000 times, its buffers added each time)
python3 - "$F" "$TMP/optloop.dat" <<'PY'
import sys, struct
d = bytearray(open(sys.argv[1], 'rb').read())
p = d.index(b'\0', 10) + 7                   # version, endian, long size, page size
p = d.index(b'\0', d.index(b'\0', p) + 1) + 1  # compression name and version
sec = struct.unpack_from('<Q', d, p)[0]
while True:
    sid, flags, _, size = struct.unpack_from('<HHIQ', d, sec)
    assert sid == 0 and flags == 0
    q = sec + 16
    while struct.unpack_from('<H', d, q)[0]:
        q += 6 + struct.unpack_from('<I', d, q + 2)[0]
    nxt = struct.unpack_from('<Q', d, q + 6)[0]
    if not nxt:
        break
    sec = nxt
struct.pack_into('<Q', d, q + 6, sec)
open(sys.argv[2], 'wb').write(d)
PY
timeout 20 "$TIO" print "$TMP/optloop.dat" > "$TMP/out" 2> "$TMP/err"; rc=$?
if [ $rc -eq 1 ] && grep -q 'optloop.dat@0x10107a: section options: read before (the DONE option of the options at 0x10107a points back to it)' "$TMP/err"; then
	ok "v7 options chain looping back: an error"
else notok "v7 options chain looping back: an error" "rc=$rc" "$(head -3 "$TMP/err")"; fi

# v7 compressed: a CPU's chunk count of 2^32 - 1 made the seek and index
# code allocate 32 GiB for the chunk list (ASan: out of memory; otherwise
# no chunk listed); no more are looked for than the file has headers for
python3 - "$TIO_TOP/tests/data/ftrace/kvm-v7-zstd.dat" "$TMP/nchunks.dat" <<'PY'
import sys, struct
d = bytearray(open(sys.argv[1], 'rb').read())
p = d.index(b'\0', 10) + 7
p = d.index(b'\0', d.index(b'\0', p) + 1) + 1
sec, off = struct.unpack_from('<Q', d, p)[0], None
while sec and off is None:                   # the options, to the BUFFER one
    q = sec + 16
    while struct.unpack_from('<H', d, q)[0] not in (0, 3):
        q += 6 + struct.unpack_from('<I', d, q + 2)[0]
    if struct.unpack_from('<H', d, q)[0] == 3:
        r = d.index(b'\0', d.index(b'\0', q + 14) + 1) + 1 + 8  # name, clock, page size, CPUs
        off = struct.unpack_from('<Q', d, r + 4)[0]            # CPU 0's data
    else:
        sec = struct.unpack_from('<Q', d, q + 6)[0]
struct.pack_into('<I', d, off, 0xffffffff)
open(sys.argv[2], 'wb').write(d)
PY
timeout 20 "$TIO" info "$TMP/nchunks.dat" > "$TMP/out" 2> "$TMP/err"; rc=$?
if [ $rc -eq 0 ] && grep -q 'stream 0 (class 0): [1-9][0-9]* pages' "$TMP/out"; then
	ok "v7 chunk count 2^32 - 1: the chunks the file has are listed"
else notok "v7 chunk count 2^32 - 1: the chunks the file has are listed" "rc=$rc" "$(grep -m3 -E 'ERROR|stream 0|traceio' "$TMP/out" "$TMP/err")"; fi

# every buffer instance gets a copy of every event class: 3,500 BUFFER options
# (15 bytes each, all pointing at the top CPU table) asked for 66,500 copies of
# 19 classes (1.2 GB with 20,000); past 65,536 copies, a limit error naming the
# option that crosses it
python3 - "$F6" "$TMP/bufs.dat" <<'PY'
import sys, struct
d = bytearray(open(sys.argv[1], 'rb').read())
at = d.index(b'options  \0') + 10
n = 3500
size = n * (6 + 8 + 6)                    # id, size, then the CPU table offset and "iNNNN\0"
fly = d.index(b'flyrecord\0') + size      # where the CPU table goes once the options are in
opts = b''.join(struct.pack('<HIQ', 3, 14, fly) + b'i%04d\0' % k for k in range(n))
assert len(opts) == size
cpus = d.index(b'flyrecord\0') + 10
for c in range(struct.unpack_from('<I', d, at - 14)[0]):  # the CPU count before "options  "
    o = struct.unpack_from('<Q', d, cpus + 16 * c)[0]
    if o:
        struct.pack_into('<Q', d, cpus + 16 * c, o + size)
open(sys.argv[2], 'wb').write(d[:at] + opts + d[at:])
PY
timeout 20 "$TIO" info "$TMP/bufs.dat" > "$TMP/out" 2> "$TMP/err"; rc=$?
if [ $rc -eq 1 ] && grep -q "bufs.dat@0x[0-9a-f]*: section options: BUFFER option 'i3448': 3501 instances of 19 event classes each, more than 65536 classes in all" "$TMP/err"; then
	ok "3,500 BUFFER options: a limit, not gigabytes"
else notok "3,500 BUFFER options: a limit, not gigabytes" "rc=$rc" "$(head -3 "$TMP/err")"; fi

# a CPU table of 65536 CPUs (1 MB) that 200 BUFFER options all point at: 13 M
# CPU buffers, gigabytes before any class was copied; past 262144 CPU buffers
# over all instances, a limit error naming the table
python3 - "$F6" "$TMP/cpus.dat" <<'PY'
import sys, struct
d = bytearray(open(sys.argv[1], 'rb').read())
ncpu, nbuf = 65536, 200
at = d.index(b'options  \0') + 10
old = struct.unpack_from('<I', d, at - 14)[0]   # the CPU count before "options  "
struct.pack_into('<I', d, at - 14, ncpu)
fly = d.index(b'flyrecord\0')
tab, extra, size = fly + 10, (ncpu - old) * 16, nbuf * (6 + 8 + 6)
for c in range(old):                            # the data moves past the options and the table
    o = struct.unpack_from('<Q', d, tab + 16 * c)[0]
    if o:
        struct.pack_into('<Q', d, tab + 16 * c, o + extra + size)
opts = b''.join(struct.pack('<HIQ', 3, 14, fly + size) + b'i%04d\0' % k for k in range(nbuf))
d = d[:tab + 16 * old] + bytes(extra) + d[tab + 16 * old:]
open(sys.argv[2], 'wb').write(d[:at] + opts + d[at:])
PY
timeout 20 "$TIO" info "$TMP/cpus.dat" > "$TMP/out" 2> "$TMP/err"; rc=$?
if [ $rc -eq 1 ] && grep -q "cpus.dat@0x[0-9a-f]*: section flyrecord: more than 262144 CPU buffers over all instances" "$TMP/err"; then
	ok "200 BUFFER options on a table of 65536 CPUs: a limit, not gigabytes"
else notok "200 BUFFER options on a table of 65536 CPUs: a limit, not gigabytes" "rc=$rc" "$(head -3 "$TMP/err")"; fi
