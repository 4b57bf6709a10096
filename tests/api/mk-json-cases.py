#!/usr/bin/env python3
"""Writes a small CTF 2 trace (DIR/metadata, DIR/stream) whose values take
the JSON printer's rarer paths: control characters, invalid UTF-8 of every
kind, UTF-16 lone surrogates and pairs, UTF-32 out of range, unnamed
variant options, integers wider than 64 bits in both byte orders, binary32
and binary64 floats with inf and nan.  Used by tests/api/test-examples.sh.
Usage: mk-json-cases.py DIR"""
import json, struct, sys, os
d = sys.argv[1]
os.makedirs(d, exist_ok=True)
loc = lambda n: {"origin": "event-record-payload", "path": [n]}
u8 = {"type": "fixed-length-unsigned-integer", "length": 8, "byte-order": "little-endian", "alignment": 8}
members = [
    {"name": "sel", "field-class": u8},
    {"name": "v", "field-class": {"type": "variant", "selector-field-location": loc("sel"), "options": [
        {"name": "named", "selector-field-ranges": [[0, 0]], "field-class": u8},
        {"selector-field-ranges": [[1, 1]], "field-class": {"type": "null-terminated-string"}},
        {"selector-field-ranges": [[2, 2]], "field-class": {"type": "fixed-length-floating-point-number", "length": 64, "byte-order": "big-endian", "alignment": 8}}]}},
    {"name": "s8", "field-class": {"type": "null-terminated-string"}},
    {"name": "s16", "field-class": {"type": "null-terminated-string", "encoding": "utf-16be"}},
    {"name": "s32", "field-class": {"type": "null-terminated-string", "encoding": "utf-32le"}},
    {"name": "f32", "field-class": {"type": "fixed-length-floating-point-number", "length": 32, "byte-order": "little-endian", "alignment": 8}},
    {"name": "big", "field-class": {"type": "fixed-length-unsigned-integer", "length": 72, "byte-order": "little-endian", "alignment": 8}},
    {"name": "bigbe", "field-class": {"type": "fixed-length-signed-integer", "length": 100, "byte-order": "big-endian", "alignment": 8}},
    {"name": "end", "field-class": u8},
]
meta = [{"type": "preamble", "version": 2}, {"type": "trace-class"}, {"type": "data-stream-class"},
        {"type": "event-record-class", "name": "strings \"and\" such", "payload-field-class": {"type": "structure", "member-classes": members}}]
with open(d + "/metadata", "w") as f:
    for o in meta:
        f.write("\x1e" + json.dumps(o) + "\n")
u16 = lambda *cu: b"".join(struct.pack(">H", c) for c in cu) + b"\0\0"
u32 = lambda *cu: b"".join(struct.pack("<I", c) for c in cu) + b"\0\0\0\0"
ev = []
# 1: named option; control characters, quotes, DEL; UTF-16 lone surrogates and a pair; UTF-32 out of range
ev.append(b"\0" + b"\x07" + b'ok \x01\x1f"\\\x7f\n\t\r\b\x0c\0' + u16(0x41, 0xD800, 0x42, 0xD83D, 0xDE00, 0xDC00, 0xE9)
          + u32(0x78, 0x110000, 0xD800, 0x1F600) + struct.pack("<f", 0.1) + bytes(range(1, 10))
          + bytes([0x0a, 0xbc, 0xde, 0xf0, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x10]) + b"\x01")
# 2: unnamed option; invalid UTF-8 of every kind (maximal subparts)
ev.append(b"\1" + b"hi\xc3\0" + b"\xff\xc3(\xe2\x82\xe2\x82\xac\xf0\x9f\x98\x80\xed\xa0\x80\xf4\x90\x80\x80\xc0\xaf\xe0\x80\x80\x80z\xf0\x9f\0"
          + u16(0xDBFF) + u32(0x10FFFF, 0xE9) + struct.pack("<f", float("inf")) + bytes(9)
          + bytes([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x70]) + b"\x02")
# 3: another unnamed option (a double); empty strings; NaN
ev.append(b"\2" + struct.pack(">d", -1e-300) + b"\0" + u16() + u32() + struct.pack("<f", float("nan")) + b"\xff" * 9
          + b"\xff" * 13 + b"\x03")
with open(d + "/stream", "wb") as f:
    f.write(b"".join(ev))
