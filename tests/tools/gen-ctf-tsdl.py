#!/usr/bin/env python3
"""Write small hand-made CTF 1.8 traces for TSDL grammar corner cases.

Usage: gen-ctf-tsdl.py CASE DIR      (gen-ctf-tsdl.py list: the cases)

Every trace has one stream class (1 GHz clock `default`), one data file
`stream` with one packet (header: magic, stream_id; context: begin/end
timestamps, content and packet sizes) and events `ev` (id 0) whose payload
is a 32-bit `x`, at times 1, 2, 3... ns.  A case changes the metadata (its
first bytes, an env value, a declaration) or the payload, as its comment
says (issue 12, items 2 and 3; docs/formats/ctf.md says what traceio does
with each).
"""
import os
import struct
import sys

HEAD = '''/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
'''

TRACE = '''trace {
	major = 1;
	minor = 8;
	byte_order = le;
	packet.header := struct {
		uint32_t magic;
		uint32_t stream_id;
	};
};
env {
	hostname = "tsdl";
	domain = "ust";
};
clock {
	name = default;
	freq = 1000000000;
	offset_s = 0;
	offset = 0;
	absolute = false;
};
typealias integer { size = 64; align = 8; signed = false; map = clock.default.value; } := uint64_clock_t;
'''

STREAM = '''stream {
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
'''

EVENT = '''event {
	name = ev;
	id = 0;
	stream_id = 0;
	fields := struct {
		uint32_t x;
	};
};
'''

BASE = HEAD + TRACE + STREAM + EVENT

# The env value of item 3a (escapes, \\0 ending the value).
ESC_HOSTNAME = (r'"\nabc \" hex: \x41, \x23, \x023, \x0231,\noct: \101, \043, \43, \0431, '
                r'\0NOT SEEN"')


def base_with(old, new):
    assert old in BASE, old
    return BASE.replace(old, new, 1)


def kw_member(name):
    return base_with('uint32_t x;', 'uint32_t x;\n\t\tuint32_t %s;' % name)


CASES = {
    'base': (BASE, None),
    # item 2: blank space before the signature (plain text)
    'ws-newline': ('\n' + BASE, None),
    'ws-mixed': (' \t\r\n\n  \t' + BASE, None),
    'bom': ('\ufeff' + BASE, None),
    'bom-ws': ('\ufeff\n  ' + BASE, None),
    # packetized metadata whose text starts with blank space
    'ws-packetized': ('\n\n' + BASE, {'packetized': True}),
    # item 2: still refused
    'not-tsdl': ('\n  hello, this is not CTF metadata\n', None),
    'ws-no-sig': ('\n\n' + BASE[len('/* CTF 1.8 */'):], None),
    'ws-bad-version': ('\n/* CTF 1.9 */' + BASE[len('/* CTF 1.8 */'):], None),
    # item 3a: escapes in an env value, the value ends at the first NUL
    'escapes': (base_with('hostname = "tsdl";', 'hostname = %s;' % ESC_HOSTNAME), None),
    # item 3b: top-level `struct NAME { ... }` with no ';' before the next declaration
    # item 3b: top-level `struct NAME { ... }` with no ';' before the next declaration, which
    # is another specifier (babeltrace's struct-inner-struct) or `typedef` (C's `T typedef N;`)
    'struct-nosemi': (base_with(STREAM, '''struct pctx {
	uint64_clock_t timestamp_begin;
	uint64_clock_t timestamp_end;
	uint64_t content_size;
	uint64_t packet_size;
}
struct unused {
	uint8_t z;
};
struct ehdr {
	uint32_t id;
	uint64_clock_t timestamp;
}
typedef struct ehdr ehdr_t;
stream {
	id = 0;
	packet.context := struct pctx;
	event.header := ehdr_t;
};
'''), None),
    # still refused: the next top-level declaration is not a specifier (babeltrace refuses it too)
    'struct-nosemi-stream': (base_with(STREAM, 'struct pctx { uint8_t z; }\n' + STREAM), None),
    # item 3c: reserved keywords as identifiers (refused)
    'kw-member': (kw_member('trace'), None),
    'kw-member-string': (kw_member('string'), None),
    'kw-typedef': (base_with(STREAM, 'typedef uint32_t int;\n' + STREAM), None),
    'kw-typealias': (base_with(STREAM, 'typealias integer { size = 16; } := event;\n' + STREAM), None),
    'kw-variant-tag': (base_with('uint32_t x;', '''uint32_t x;
		enum : uint8_t { a, b } _variant;
		variant <variant> { uint8_t a; uint32_t b; } v;'''), {'payload': 'tag'}),
    # item 3c: LTTng's escaped names (accepted, shown without the '_')
    'kw-escaped': (base_with('uint32_t x;', '''uint32_t x;
		uint32_t _trace;
		enum : uint8_t { _string, _int } _variant;
		variant <_variant> { uint8_t _string; uint32_t _int; } _event;'''),
                   {'payload': 'escaped'}),
    # item 3d: an empty structure aligned past the end of the packet content
    'empty-struct-align': (base_with('uint32_t x;', 'struct { } align(64) e;'), {'payload': 'empty'}),
    # a zero-length array aligned past the end: the same error
    'empty-array-align': (base_with('uint32_t x;', 'integer { size = 64; align = 64; } a[0];'),
                          {'payload': 'empty'}),
    # the same structure when it fits: no error
    'empty-struct-fits': (base_with('uint32_t x;', 'uint32_t x;\n\t\tstruct { } align(64) e;'),
                          {'payload': 'empty-fits'}),
}


def packetize(text):
    """Metadata packets of at most 200 bytes of text each (CTF 1.8.3 7.1)."""
    out = b''
    data = text.encode()
    for k in range(0, len(data), 200):
        chunk = data[k:k + 200]
        content = 37 + len(chunk)
        size = (content + 7) // 8 * 8 + 8
        out += struct.pack('<I16sIIIBBBBB', 0x75D11D57, bytes(range(16)), 0, content * 8, size * 8,
                           0, 0, 0, 1, 8)
        out += chunk + b'\0' * (size - content)
    return out


def stream_bytes(payload):
    """One packet; its events and content end depend on the payload kind."""
    head = struct.pack('<II', 0xC1FC1FC1, 0)
    ctx_len = 4 * 8
    events = b''
    pos = len(head) + ctx_len
    nev = 3 if payload != 'empty' else 1
    for k in range(nev):
        ev = struct.pack('<IQ', 0, k + 1)
        if payload == 'empty':
            # header ends at byte 52; the payload would start at byte 56
            pass
        elif payload == 'empty-fits':
            # the payload structure is aligned as its empty member (64 bits); the
            # last event's empty structure ends exactly at the content's end
            ev += b'\0' * ((-(pos + len(ev))) % 8)
            ev += struct.pack('<I', 100 + k)
            ev += b'\0' * ((-(pos + len(ev))) % 8)
        elif payload == 'tag':
            ev += struct.pack('<IB', 100 + k, k % 2)
            ev += struct.pack('<B', 7) if k % 2 == 0 else struct.pack('<I', 70000)
        elif payload == 'escaped':
            ev += struct.pack('<IIB', 100 + k, 200 + k, k % 2)
            ev += struct.pack('<B', 7) if k % 2 == 0 else struct.pack('<I', 70000)
        else:
            ev += struct.pack('<I', 100 + k)
        events += ev
        pos += len(ev)
    content = pos
    size = (content + 15) // 8 * 8  # some padding after the content
    ctx = struct.pack('<4Q', 1, nev, content * 8, size * 8)
    data = head + ctx + events
    return data + b'\0' * (size - len(data))


def main():
    if sys.argv[1:] == ['list']:
        print('\n'.join(CASES))
        return
    case, out = sys.argv[1], sys.argv[2]
    text, opts = CASES[case]
    opts = opts or {}
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, 'metadata'), 'wb') as f:
        f.write(packetize(text) if opts.get('packetized') else text.encode())
    with open(os.path.join(out, 'stream'), 'wb') as f:
        f.write(stream_bytes(opts.get('payload', 'x')))


if __name__ == "__main__":
    main()
