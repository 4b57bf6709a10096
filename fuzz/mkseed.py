#!/usr/bin/env python3
"""Build fuzz seeds from real traces (fuzz/corpora/<target>/).

  mkseed.py container OUT DIR [MAXBYTES]   a trace directory as a fuzz.h file container
                                            (each file cut to MAXBYTES, default 65536)
  mkseed.py shrink-tracedat OUT IN [LINES]  a trace.dat v6 without options with its
                                            kallsyms cut to LINES lines (CPU data offsets moved)
"""
import os
import struct
import sys


def container(out, d, maxbytes=65536):
    names = []
    for n in sorted(os.listdir(d)):
        p = os.path.join(d, n)
        if os.path.isdir(p):  # one level of subdirectories ("cpu/0")
            names += [n + '/' + m for m in sorted(os.listdir(p)) if os.path.isfile(os.path.join(p, m))]
        elif os.path.isfile(p):
            names.append(n)
    # the metadata first: the readers need it to make sense of the rest
    names.sort(key=lambda n: not (n.startswith('metadata') or n.startswith('info/') or n.startswith('eventdefs/')))
    with open(out, 'wb') as f:
        for n in names:
            b = open(os.path.join(d, n), 'rb').read()[:maxbytes]
            f.write(n.encode() + b'\0' + struct.pack('<I', len(b)) + b)


def shrink_tracedat(out, inp, lines=20):
    b = open(inp, 'rb').read()
    assert b[:10] == b'\x17\x08\x44tracing', 'not a trace.dat'
    at = 10
    nul = b.index(b'\0', at)
    assert b[at:nul] == b'6', 'v6 only'
    at = nul + 1
    be = b[at] == 1
    e = '>' if be else '<'
    at += 2
    page_size = struct.unpack_from(e + 'I', b, at)[0]
    at += 4

    def sized(at, fmt):
        n = struct.unpack_from(e + fmt, b, at)[0]
        return at + struct.calcsize(fmt) + n

    for name in (b'header_page\0', b'header_event\0'):
        assert b[at:at + len(name)] == name
        at = sized(at + len(name), 'Q')
    n = struct.unpack_from(e + 'I', b, at)[0]
    at += 4
    for _ in range(n):
        at = sized(at, 'Q')
    nsys = struct.unpack_from(e + 'I', b, at)[0]
    at += 4
    for _ in range(nsys):
        at = b.index(b'\0', at) + 1
        n = struct.unpack_from(e + 'I', b, at)[0]
        at += 4
        for _ in range(n):
            at = sized(at, 'Q')
    head = b[:at]
    ksize = struct.unpack_from(e + 'I', b, at)[0]
    kall = b[at + 4:at + 4 + ksize]
    kall = b''.join(kall.splitlines(True)[:lines])
    rest_at = at + 4 + ksize
    pk_end = sized(rest_at, 'I')
    cl_end = sized(pk_end, 'Q')
    ncpus = struct.unpack_from(e + 'I', b, cl_end)[0]
    at = cl_end + 4
    assert b[at:at + 10] == b'options  \0', 'expected options'
    at += 10
    assert struct.unpack_from(e + 'H', b, at)[0] == 0, 'options present: not handled'
    at += 2
    assert b[at:at + 10] == b'flyrecord\0', 'flyrecord only'
    at += 10
    cpus = [struct.unpack_from(e + 'QQ', b, at + 16 * i) for i in range(ncpus)]
    table_end = at + 16 * ncpus
    newhead = head + struct.pack(e + 'I', len(kall)) + kall + b[rest_at:at]
    data_at = len(newhead) + 16 * ncpus
    data_at = (data_at + page_size - 1) // page_size * page_size
    table = b''
    data = b''
    for off, size in cpus:
        table += struct.pack(e + 'QQ', data_at + len(data) if size else 0, size)
        data += b[off:off + size]
    with open(out, 'wb') as f:
        f.write(newhead + table)
        f.write(b'\0' * (data_at - len(newhead) - len(table)))
        f.write(data)


if __name__ == '__main__':
    if sys.argv[1] == 'container':
        container(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 65536)
    elif sys.argv[1] == 'shrink-tracedat':
        shrink_tracedat(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 20)
    else:
        sys.exit(__doc__)
