#!/usr/bin/env python3
"""Write a CTF 1.8 trace of NPACKETS packets of 2 MiB each: one stream file,
every packet's first 256 KiB holding events (all of the packet at the same
time, packets 1 us apart), the rest padding, as a tracer that flushes its
sub-buffers early writes them; with "full", events fill every packet.  For
tests/api/test-rss.sh.

usage: mk-big-ctf.py DIR NPACKETS [full]"""
import os
import struct
import sys

PACKET = 2 << 20
EVENTS_BYTES = 256 << 10

METADATA = """/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
trace {
	major = 1;
	minor = 8;
	byte_order = le;
	packet.header := struct { uint32_t magic; uint32_t stream_id; };
};
clock { name = "c"; freq = 1000000000; };
typealias integer { size = 64; align = 8; signed = false; map = clock.c.value; } := ts_t;
stream {
	id = 0;
	event.header := struct { uint8_t id; ts_t timestamp; };
	packet.context := struct {
		ts_t timestamp_begin;
		ts_t timestamp_end;
		uint64_t content_size;
		uint64_t packet_size;
	};
};
event { name = "tick"; id = 0; stream_id = 0; fields := struct { uint32_t v; }; };
"""


def main():
    out, npk = sys.argv[1], int(sys.argv[2])
    full = len(sys.argv) > 3 and sys.argv[3] == "full"
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "metadata"), "w") as f:
        f.write(METADATA)
    head = 8 + 32
    nev = ((PACKET if full else EVENTS_BYTES) - head) // 13
    with open(os.path.join(out, "stream_0"), "wb") as f:
        for k in range(npk):
            ts = 1000000000 + k * 1000
            content = head + nev * 13
            pkt = struct.pack("<II", 0xC1FC1FC1, 0)
            pkt += struct.pack("<QQQQ", ts, ts, content * 8, PACKET * 8)
            pkt += struct.pack("<BQI", 0, ts, k) * nev
            f.write(pkt + bytes(PACKET - len(pkt)))


main()
