#!/bin/bash
# Hostile CTF metadata: large but legal numbers of names, events and stream
# classes must cost time and memory in proportion to the text, never a
# search of every earlier one per new one (each of these took tens of
# seconds, or 900 MB, before), and duplicates are still errors naming the
# line and column.
. "$TIO_TOP/tests/lib.sh"

# gen MODE DIR N: a trace whose metadata has N of something (plain text)
gen() {
	python3 - "$@" <<'PY'
import os, struct, sys
mode, d, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
hdr = '''/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 32; signed = false; } := uint32_t;
trace { major = 1; minor = 8; byte_order = le;
  packet.header := struct { uint32_t magic; uint32_t stream_id; };
};
'''
data = struct.pack('<II', 0xc1fc1fc1, 0)
if mode == 'events':  # n event classes in one stream class
    m = hdr + 'stream { id = 0; event.header := struct { uint32_t id; }; };\n'
    m += ''.join('event { name = e%d; id = %d; };\n' % (i, i) for i in range(n))
    data += struct.pack('<I', n - 1)
elif mode == 'events-dup':  # the same, the last id used twice
    m = hdr + 'stream { id = 0; event.header := struct { uint32_t id; }; };\n'
    m += ''.join('event { name = e%d; id = %d; };\n' % (i, i) for i in range(n))
    m += 'event { name = again; id = %d; };\n' % (n // 2)
elif mode == 'members':  # a structure of n members
    m = hdr + 'stream { id = 0; };\n'
    m += 'event { name = e; fields := struct {\n' + ''.join('uint8_t a%d;\n' % i for i in range(n)) + '}; };\n'
    data += bytes(n)
elif mode == 'members-dup':
    m = hdr + 'stream { id = 0; };\n'
    m += 'event { name = e; fields := struct {\n' + ''.join('uint8_t a%d;\n' % i for i in range(n)) + 'uint8_t a7;\n}; };\n'
elif mode == 'enum':  # an enumeration of n labels, one of them given twice
    m = hdr + 'stream { id = 0; };\n'
    m += 'event { name = e; fields := struct { enum : uint32_t {\n' + ''.join('a%d,\n' % i for i in range(n)) + 'a3 = 7000000 } x; }; };\n'
    data += struct.pack('<I', 7000000)
elif mode == 'variant':  # a variant of n options selected by an enumeration of n labels
    m = hdr + 'stream { id = 0; };\n'
    m += 'event { name = e; fields := struct { enum : uint32_t { ' + ','.join('_a%d' % i for i in range(n))
    m += ' } x; variant <x> { ' + ''.join('uint8_t a%d;' % i for i in range(n)) + ' } v; }; };\n'
    data += struct.pack('<IB', n - 1, 42)
elif mode == 'streams':  # n stream classes, each with one event of id 65535
    m = hdr + ''.join('stream { id = %d; event.header := struct { uint32_t id; }; };\n'
                      'event { name = e; stream_id = %d; id = 65535; };\n' % (i, i) for i in range(n))
    data += struct.pack('<I', 65535)
elif mode == 'streams-dup':
    m = hdr + ''.join('stream { id = %d; };\n' % i for i in range(n)) + 'stream { id = 9; };\n'
os.makedirs(d)
open(os.path.join(d, 'metadata'), 'w').write(m)
open(os.path.join(d, 's'), 'wb').write(data)
PY
}

# run NAME DIR: print it within 20 s (a search per name took minutes)
run() {
	local t0=$SECONDS
	timeout 20 "$TIO" print "$2" > "$TMP/out" 2> "$TMP/err"; rc=$?
	secs=$((SECONDS - t0))
}

gen events "$TMP/events" 300000
run events "$TMP/events"
if [ $rc -eq 0 ] && grep -q '^e299999: ' "$TMP/out"; then ok "300000 event classes: read in ${secs}s"
else notok "300000 event classes: read in ${secs}s" "rc=$rc" "$(head -3 "$TMP/err")"; fi

gen events-dup "$TMP/evdup" 100000
run evdup "$TMP/evdup"
if [ $rc -eq 1 ] && grep -q 'evdup/metadata:100008:1: event `again` has id 50000, already used by event `e50000` in stream class 0' "$TMP/err"; then
	ok "100000 event classes, an id twice: an error in ${secs}s"
else notok "100000 event classes, an id twice: an error in ${secs}s" "rc=$rc" "$(head -3 "$TMP/err")"; fi

gen members "$TMP/members" 200000
run members "$TMP/members"
if [ $rc -eq 0 ] && grep -q 'a199999 = 0 }' "$TMP/out"; then ok "a structure of 200000 members: read in ${secs}s"
else notok "a structure of 200000 members: read in ${secs}s" "rc=$rc" "$(head -3 "$TMP/err")"; fi

gen members-dup "$TMP/memdup" 200000
run memdup "$TMP/memdup"
if [ $rc -eq 1 ] && grep -q 'memdup/metadata:200009:9: duplicate field name `a7`' "$TMP/err"; then
	ok "a structure of 200000 members, a name twice: an error in ${secs}s"
else notok "a structure of 200000 members, a name twice: an error in ${secs}s" "rc=$rc" "$(head -3 "$TMP/err")"; fi

gen enum "$TMP/enum" 200000
run enum "$TMP/enum"
if [ $rc -eq 0 ] && grep -q 'x = ( "a3" : container = 7000000 )' "$TMP/out"; then
	ok "an enumeration of 200000 labels, one with two ranges: read in ${secs}s"
else notok "an enumeration of 200000 labels, one with two ranges: read in ${secs}s" "rc=$rc" "$(head -3 "$TMP/err")" "$(head -c 300 "$TMP/out")"; fi

gen variant "$TMP/variant" 100000
run variant "$TMP/variant"
if [ $rc -eq 0 ] && grep -q 'v = { 42 }' "$TMP/out"; then
	ok "a variant of 100000 options (labels with '_'): read in ${secs}s"
else notok "a variant of 100000 options (labels with '_'): read in ${secs}s" "rc=$rc" "$(head -3 "$TMP/err")" "$(head -c 300 "$TMP/out")"; fi

# 65536 stream classes (the limit): each event id table was 2.6 MB, of
# which two pages were touched: 900 MB for 6 MB of metadata
gen streams "$TMP/streams" 65536
t0=$SECONDS
/usr/bin/time -f '%M' -o "$TMP/rss" timeout 20 "$TIO" print "$TMP/streams" > "$TMP/out" 2> "$TMP/err"; rc=$?
secs=$((SECONDS - t0)); rss=$(tail -1 "$TMP/rss")
if [ $rc -eq 0 ] && [ "$(wc -l < "$TMP/out")" -eq 1 ] && { is_sanitized || [ "$rss" -lt 400000 ]; }; then
	ok "65536 stream classes: read in ${secs}s, ${rss} kB"
else notok "65536 stream classes: read in ${secs}s, ${rss} kB" "rc=$rc" "$(head -3 "$TMP/err")"; fi

gen streams-dup "$TMP/stdup" 65000
run stdup "$TMP/stdup"
if [ $rc -eq 1 ] && grep -q 'stdup/metadata:65007:1: stream class id 9 is declared twice' "$TMP/err"; then
	ok "65000 stream classes, an id twice: an error in ${secs}s"
else notok "65000 stream classes, an id twice: an error in ${secs}s" "rc=$rc" "$(head -3 "$TMP/err")"; fi
