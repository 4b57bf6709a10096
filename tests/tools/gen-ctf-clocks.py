#!/usr/bin/env python3
"""Hand-made CTF traces for issue 12's items 4 to 7 (no third-party file).

Usage: gen-ctf-clocks.py KIND DIR

KIND:
  revfloat   CTF 2: fixed-length floats whose bit order is opposite to their
             byte order (32 and 64 bits, little- and big-endian, byte-aligned
             and not), two events.  The first holds 1.5 everywhere: as a
             big-endian float with the "first-to-last" bit order its bytes are
             00 00 03 fc, as a little-endian one with "last-to-first" they are
             fc 03 00 00 (the bits of the value's IEEE 754 word, reversed, then
             stored in the byte order).
  ghz28      CTF 1.8: two streams of a 2.8 GHz clock whose offset is 1.5e9 s +
             1 234 567 891 cycles, with cycle values for which babeltrace2's
             double arithmetic and an exact integer floor give different ns
             (listed in the `exact` and `bt2` files), and one event pair whose
             order between the streams depends on that 1 ns.
  bigoffset  CTF 1.8: a 1 GHz clock whose offset_s is a time in ns
             (1351530929945824323), as a writer that confused the units made
             it; three events at 10, 20, 30 cycles.
  endonly    CTF 1.8: packets with timestamp_end (mapped to the clock) but no
             timestamp_begin, events without a timestamp: 4 packets ending at
             1, 3, 5, 7 cycles, 2 events each.
  ties       CTF 1.8: two streams whose discarded-packets and discarded-events
             records begin at the time of another stream's event; in
             babeltrace2's order (stream before message kind) the event of
             stream 0 comes before the record of stream 1, and the record of
             stream 0 before the event of stream 1.  Stream 0: events 0-4 at
             10, 20, 30, 45, 50, a packet lost, events 5-6 at 70, 80; stream 1:
             events 100-101 at 5, 15, a packet lost, 102-103 at 25, 40, then a
             packet that counts 3 discarded events, 104-105 at 48, 50 (ns from
             the origin).
  uuidties   two CTF 1.8 traces, DIR/a (UUID ff...) and DIR/b (UUID 00...),
             events 0-2 and 100-102 at the same times 10, 20, 30: babeltrace2
             orders equal times by trace UUID, so b's event comes first though
             a is found first.
  nameties   the same without UUIDs, DIR/a's env hostname "zz" and DIR/b's
             "aa": babeltrace2 then orders equal times by trace name
             (hostname/path), b's first again.
"""
import json
import os
import struct
import sys


def bit_reverse(v, n):
    r = 0
    for k in range(n):
        r |= ((v >> k) & 1) << (n - 1 - k)
    return r


def revfloat(out):
    fields = [
        # name, length, byte order, alignment
        ('f32le', 32, 'little-endian', 8),
        ('f32be', 32, 'big-endian', 8),
        ('f64le', 64, 'little-endian', 8),
        ('f64be', 64, 'big-endian', 8),
        ('pad', 3, 'little-endian', 1),
        ('f32le_odd', 32, 'little-endian', 1),
        ('pad2', 5, 'little-endian', 1),
    ]
    members = []
    for name, n, bo, al in fields:
        if name.startswith('pad'):
            fc = {'type': 'fixed-length-unsigned-integer', 'length': n, 'byte-order': bo, 'alignment': al}
        else:
            fc = {'type': 'fixed-length-floating-point-number', 'length': n, 'byte-order': bo, 'alignment': al,
                  'bit-order': 'last-to-first' if bo == 'little-endian' else 'first-to-last'}
        members.append({'name': name, 'field-class': fc})
    frags = [
        {'type': 'preamble', 'version': 2},
        {'type': 'trace-class'},
        {'type': 'data-stream-class'},
        {'type': 'event-record-class', 'name': 'rev',
         'payload-field-class': {'type': 'structure', 'member-classes': members}},
    ]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, 'metadata'), 'w') as f:
        for fr in frags:
            f.write('\x1e' + json.dumps(fr) + '\n')
    events = [(1.5, 1.5, 1.5, 1.5, 5, 1.5, 17), (-0.15625, 1e-3, 6.02214076e23, -2.5e-300, 2, 3.25, 0)]
    data = bytearray()
    for ev in events:
        bits, order = [], []
        for (name, n, bo, al), v in zip(fields, ev):
            while len(bits) % al:
                bits.append(0)
            be = bo == 'big-endian'
            if name.startswith('pad'):
                word = v
            else:
                word = struct.unpack('<I', struct.pack('<f', v))[0] if n == 32 else \
                    struct.unpack('<Q', struct.pack('<d', v))[0]
                word = bit_reverse(word, n)
            start = len(bits)
            if be:
                bits.extend((word >> (n - 1 - k)) & 1 for k in range(n))
            else:
                bits.extend((word >> k) & 1 for k in range(n))
            for i in range(start // 8, (len(bits) + 7) // 8):
                while len(order) <= i:
                    order.append(False)
                order[i] = be
        while len(bits) % 8:
            bits.append(0)
        for i in range(0, len(bits), 8):
            chunk = bits[i:i + 8]
            if order[i // 8]:
                data.append(sum(b << (7 - k) for k, b in enumerate(chunk)))
            else:
                data.append(sum(b << k for k, b in enumerate(chunk)))
    with open(os.path.join(out, 'stream'), 'wb') as f:
        f.write(bytes(data))
    assert data[:4] == b'\xfc\x03\x00\x00' and data[4:8] == b'\x00\x00\x03\xfc', data[:8].hex()


TSDL_HEAD = '''/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
trace {
	major = 1;
	minor = 8;
	byte_order = le;
	packet.header := struct {
		uint32_t magic;
		uint32_t stream_id;
		uint32_t stream_instance_id;
	};
};
'''


def packet(stream_id, inst, ctx, events, uuid=b''):
    """A packet: header (with the trace's UUID bytes when given), context
    fields (list of (fmt, value) with `content` and `size` placeholders
    filled in), then the events' bytes."""
    hdr = struct.pack('<I', 0xC1FC1FC1) + uuid + struct.pack('<II', stream_id, inst)
    body = b''.join(events)
    ctx_len = sum(struct.calcsize(f) for f, _ in ctx)
    total = len(hdr) + ctx_len + len(body)
    vals = []
    for f, v in ctx:
        vals.append(total * 8 if v in ('content', 'size') else v)
    c = b''.join(struct.pack(f, v) for (f, _), v in zip(ctx, vals))
    return hdr + c + body


def ns_exact(freq, off_s, off_c, v):
    return off_s * 10**9 + (off_c * 10**9) // freq + (v * 10**9) // freq


def ns_bt2(freq, off_s, off_c, v):
    # what babeltrace2 computes: whole seconds of the offset, then its
    # cycles and the value each through a double, truncated
    def conv(c):
        return int(1e9 * float(c) / float(freq))
    off_s += off_c // freq
    off_c %= freq
    return off_s * 10**9 + conv(off_c) + conv(v)


def ghz28(out):
    freq, off_s, off_c = 2800000000, 1500000000, 1234567891
    os.makedirs(out, exist_ok=True)
    meta = TSDL_HEAD + f'''clock {{
	name = tsc;
	freq = {freq};
	offset_s = {off_s};
	offset = {off_c};
	absolute = true;
}};
typealias integer {{ size = 64; align = 8; signed = false; map = clock.tsc.value; }} := uint64_clock_t;
stream {{
	id = 0;
	packet.context := struct {{
		uint64_clock_t timestamp_begin;
		uint64_clock_t timestamp_end;
		uint64_t content_size;
		uint64_t packet_size;
	}};
	event.header := struct {{
		uint32_t id;
		uint64_clock_t timestamp;
	}};
}};
event {{
	name = tick;
	id = 0;
	stream_id = 0;
	fields := struct {{
		uint32_t n;
	}};
}};
'''
    with open(os.path.join(out, 'metadata'), 'w') as f:
        f.write(meta)
    # cycle values where the two computations differ by 1 ns: multiples of
    # 14 (5 ns exactly at 2.8 GHz) large enough that 1e9 * v is rounded
    diff = []
    v = 362366041996 - 14
    while len(diff) < 12:
        v += 14
        if ns_exact(freq, off_s, off_c, v) != ns_bt2(freq, off_s, off_c, v):
            diff.append(v)
    # stream 1: an event both computations put at babeltrace2's time of the
    # first of them (a tie for babeltrace2, 1 ns earlier when exact)
    a = diff[0]
    target = ns_bt2(freq, off_s, off_c, a)
    assert ns_exact(freq, off_s, off_c, a) == target + 1
    c = a - 1
    while not (ns_exact(freq, off_s, off_c, c) == target == ns_bt2(freq, off_s, off_c, c)):
        c -= 1
        assert a - c < 100
    streams = {0: diff, 1: [c - 1000, c, diff[-1] + 5000000]}
    rows = []
    for inst, vals in streams.items():
        evs = [struct.pack('<IQI', 0, c, 100 * inst + k) for k, c in enumerate(vals)]
        ctx = [('<Q', vals[0]), ('<Q', vals[-1]), ('<Q', 'content'), ('<Q', 'size')]
        with open(os.path.join(out, f'stream_{inst}'), 'wb') as f:
            f.write(packet(0, inst, ctx, evs))
        for k, c in enumerate(vals):
            rows.append((c, inst, 100 * inst + k))
    for name, fn in (('exact', ns_exact), ('bt2', ns_bt2)):
        with open(os.path.join(out, '..', os.path.basename(out) + '.' + name), 'w') as f:
            for c, inst, n in rows:
                f.write(f'{n} {c} {fn(freq, off_s, off_c, c)}\n')


def ns_meta(ctx_extra='', clock='default', offset_s=0, absolute='true'):
    """A 1 GHz clock (from the Unix epoch by default) and one stream class of
    `ev` events (uint32 `n`) with 64-bit times; ctx_extra: more packet
    context fields."""
    return f'''clock {{
	name = {clock};
	freq = 1000000000;
	offset_s = {offset_s};
	offset = 0;
	absolute = {absolute};
}};
typealias integer {{ size = 64; align = 8; signed = false; map = clock.{clock}.value; }} := uint64_clock_t;
stream {{
	id = 0;
	packet.context := struct {{
		uint64_clock_t timestamp_begin;
		uint64_clock_t timestamp_end;
		uint64_t content_size;
		uint64_t packet_size;
{ctx_extra}	}};
	event.header := struct {{
		uint32_t id;
		uint64_clock_t timestamp;
	}};
}};
event {{
	name = ev;
	id = 0;
	stream_id = 0;
	fields := struct {{
		uint32_t n;
	}};
}};
'''


def bigoffset(out):
    os.makedirs(out, exist_ok=True)
    meta = TSDL_HEAD + ns_meta(clock='monotonic', offset_s=1351530929945824323, absolute='false')
    with open(os.path.join(out, 'metadata'), 'w') as f:
        f.write(meta)
    evs = [struct.pack('<IQI', 0, 10 * (k + 1), k) for k in range(3)]
    ctx = [('<Q', 10), ('<Q', 30), ('<Q', 'content'), ('<Q', 'size')]
    with open(os.path.join(out, 'stream_0'), 'wb') as f:
        f.write(packet(0, 0, ctx, evs))


def endonly(out):
    os.makedirs(out, exist_ok=True)
    meta = TSDL_HEAD + '''clock {
	name = default;
	freq = 1000000000;
	offset_s = 0;
	offset = 0;
};
typealias integer { size = 64; align = 8; signed = false; map = clock.default.value; } := uint64_clock_t;
stream {
	id = 0;
	packet.context := struct {
		uint64_clock_t timestamp_end;
		uint64_t content_size;
		uint64_t packet_size;
	};
	event.header := struct {
		uint32_t id;
	};
};
event {
	name = ev;
	id = 0;
	stream_id = 0;
	fields := struct {
		uint32_t n;
	};
};
'''
    with open(os.path.join(out, 'metadata'), 'w') as f:
        f.write(meta)
    data = b''
    for p, end in enumerate((1, 3, 5, 7)):
        evs = [struct.pack('<II', 0, 10 * p + k) for k in range(2)]
        data += packet(0, 0, [('<Q', end), ('<Q', 'content'), ('<Q', 'size')], evs)
    with open(os.path.join(out, 'stream_0'), 'wb') as f:
        f.write(data)


def ties(out):
    os.makedirs(out, exist_ok=True)
    meta = TSDL_HEAD + ns_meta('\t\tuint64_t events_discarded;\n\t\tuint64_t packet_seq_num;\n')
    with open(os.path.join(out, 'metadata'), 'w') as f:
        f.write(meta)
    # per stream: packets (seq, discarded so far, begin, end, [(time, n)])
    streams = {
        0: [(0, 0, 10, 50, [(10, 0), (20, 1), (30, 2), (45, 3), (50, 4)]),
            (2, 0, 70, 80, [(70, 5), (80, 6)])],
        1: [(0, 0, 5, 20, [(5, 100), (15, 101)]),
            (2, 0, 25, 45, [(25, 102), (40, 103)]),
            (3, 3, 48, 60, [(48, 104), (50, 105)])],
    }
    for inst, packets in streams.items():
        data = b''
        for seq, disc, begin, end, evs in packets:
            ctx = [('<Q', begin), ('<Q', end), ('<Q', 'content'), ('<Q', 'size'), ('<Q', disc), ('<Q', seq)]
            data += packet(0, inst, ctx, [struct.pack('<IQI', 0, t, n) for t, n in evs])
        with open(os.path.join(out, f'stream_{inst}'), 'wb') as f:
            f.write(data)


def uuidties(out, with_uuid=True):
    import uuid
    for name, uu, host, first in (('a', 'ffffffff-0000-4000-8000-000000000000', 'zz', 0),
                                  ('b', '00000000-0000-4000-8000-0000000000ff', 'aa', 100)):
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        if with_uuid:
            meta = TSDL_HEAD.replace('trace {\n', 'trace {\n\tuuid = "%s";\n' % uu, 1).replace(
                'uint32_t magic;', 'uint32_t magic;\n\t\tuint8_t uuid[16];', 1)
        else:
            meta = TSDL_HEAD + 'env {\n\thostname = "%s";\n};\n' % host
        meta += ns_meta()
        with open(os.path.join(d, 'metadata'), 'w') as f:
            f.write(meta)
        evs = [struct.pack('<IQI', 0, t, first + k) for k, t in enumerate((10, 20, 30))]
        ctx = [('<Q', 10), ('<Q', 30), ('<Q', 'content'), ('<Q', 'size')]
        with open(os.path.join(d, 'stream_0'), 'wb') as f:
            f.write(packet(0, 0, ctx, evs, uuid.UUID(uu).bytes if with_uuid else b''))


if __name__ == '__main__':
    {'revfloat': revfloat, 'ghz28': ghz28, 'bigoffset': bigoffset, 'endonly': endonly,
     'ties': ties, 'uuidties': uuidties, 'nameties': lambda out: uuidties(out, False)}[sys.argv[1]](sys.argv[2])
