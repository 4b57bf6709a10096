#!/usr/bin/env python3
"""Write a small CTF 1.8 trace with one event `ev` holding one real number.

Usage: gen-ctf-real.py float|double DIR

The trace that babeltrace's sink.ctf.fs tests start from (a C generator that
is not in the peer data): one stream class with a 1 GHz clock `default`
(offset 0), one packet at time 0, one event `ev` at time 0 whose payload is
`flt`, a binary32 -28.4751, or `dbl`, a binary64 17283.3881.  Their expected
details are plugins/sink.ctf.fs/succeed/trace-{float,double}-ctf{1,2}.expect.
"""
import os
import struct
import sys

KINDS = {
    'float': ('flt', 'exp_dig = 8; mant_dig = 24; align = 32;', '<f', -28.4751, 4),
    'double': ('dbl', 'exp_dig = 11; mant_dig = 53; align = 64;', '<d', 17283.3881, 8),
}


def main():
    kind, out = sys.argv[1], sys.argv[2]
    name, fp, fmt, value, align = KINDS[kind]
    os.makedirs(out, exist_ok=True)
    meta = f'''/* CTF 1.8 */
typealias integer {{ size = 8; align = 8; signed = false; }} := uint8_t;
typealias integer {{ size = 32; align = 8; signed = false; }} := uint32_t;
typealias integer {{ size = 64; align = 8; signed = false; }} := uint64_t;
trace {{
	major = 1;
	minor = 8;
	byte_order = le;
	packet.header := struct {{
		uint32_t magic;
		uint32_t stream_id;
	}};
}};
clock {{
	name = default;
	freq = 1000000000;
	precision = 1;
	offset_s = 0;
	offset = 0;
	absolute = false;
}};
typealias integer {{ size = 64; align = 8; signed = false; map = clock.default.value; }} := uint64_clock_t;
stream {{
	id = 0;
	packet.context := struct {{
		uint64_clock_t timestamp_begin;
		uint64_clock_t timestamp_end;
		uint64_t content_size;
		uint64_t packet_size;
		uint64_t packet_seq_num;
		uint64_t events_discarded;
	}};
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
		floating_point {{ {fp} byte_order = le; }} {name};
	}};
}};
'''
    with open(os.path.join(out, 'metadata'), 'w') as f:
        f.write(meta)
    head = struct.pack('<II', 0xC1FC1FC1, 0)
    ctx_len = 6 * 8
    ev_head = struct.pack('<IQ', 0, 0)
    pos = len(head) + ctx_len + len(ev_head)
    pad = (-pos) % align
    payload = b'\0' * pad + struct.pack(fmt, value)
    size = (pos + len(payload)) * 8
    ctx = struct.pack('<6Q', 0, 0, size, size, 0, 0)
    data = head + ctx + ev_head + payload
    assert len(data) * 8 == size
    with open(os.path.join(out, 'stream'), 'wb') as f:
        f.write(data)


main()
