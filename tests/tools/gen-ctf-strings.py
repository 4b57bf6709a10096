#!/usr/bin/env python3
"""Write a small CTF 1.8 trace of NUL-terminated strings of every length.

Usage: gen-ctf-strings.py DIR

The decoder finds a short string's end in the words that follow it when
they are in the packet content, and calls memchr otherwise: this trace has
strings of 0 to 40 bytes (UTF-8: bytes 0x01 to 0xef but NUL), each
followed by an 8-bit integer holding its length, at every byte offset
modulo 8, and a last string of each packet that ends exactly at the
content's end (no padding after it).  Two packets, the second with the
lengths in reverse order.  DIR.expect gets one line per event: the event
name, the string's bytes in hex, and the length field (absent for `last`).
"""
import os
import struct
import sys

META = '''/* CTF 1.8 */
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
	};
};
clock {
	name = default;
	freq = 1000000000;
	precision = 1;
	offset_s = 0;
	offset = 0;
	absolute = false;
};
typealias integer { size = 64; align = 8; signed = false; map = clock.default.value; } := uint64_clock_t;
stream {
	id = 0;
	packet.context := struct {
		uint64_clock_t timestamp_begin;
		uint64_clock_t timestamp_end;
		uint64_t content_size;
		uint64_t packet_size;
	};
	event.header := struct {
		uint32_t id;
		uint64_clock_t timestamp;
	};
};
event {
	name = ev;
	id = 0;
	stream_id = 0;
	fields := struct {
		string s;
		uint8_t len;
	};
};
event {
	name = last;
	id = 1;
	stream_id = 0;
	fields := struct {
		string s;
	};
};
'''


def text(n, seed):
    """n bytes of UTF-8 without NUL: ASCII, 0x01, 0x7f, and 2- and 3-byte
    characters (bytes 0x80 to 0xef)."""
    tokens = ['a', 'Z', '\x01', '\x7f', '~', '\u00e9', '\u20ac', '\u07ff']
    out = b''
    k = seed
    while len(out) < n:
        t = tokens[k % len(tokens)].encode()
        k = k * 5 + 3
        out += t if len(out) + len(t) <= n else b'q'
    return out


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, 'metadata'), 'w') as f:
        f.write(META)
    data = b''
    expect = []
    ts = 1000
    for pk, lengths in enumerate((range(41), range(40, -1, -1))):
        begin = ts
        events = b''
        for n in lengths:
            s = text(n, n + pk)
            events += struct.pack('<IQ', 0, ts) + s + b'\0' + struct.pack('<B', n)
            expect.append('ev %s %d' % (s.hex(), n))
            ts += 10
        s = text(23, pk)
        events += struct.pack('<IQ', 1, ts) + s + b'\0'
        expect.append('last %s' % s.hex())
        head = struct.pack('<II', 0xC1FC1FC1, 0)
        size = (len(head) + 4 * 8 + len(events)) * 8
        ctx = struct.pack('<4Q', begin, ts, size, size)
        data += head + ctx + events
        ts += 10
    with open(os.path.join(out, 'stream'), 'wb') as f:
        f.write(data)
    with open(out.rstrip('/') + '.expect', 'w') as f:
        f.write('\n'.join(expect) + '\n')


main()
