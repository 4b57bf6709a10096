#!/usr/bin/env python3
"""Make a small trace.dat v6 with ftrace function, func_repeats and raw_data
records out of a real recording whose trace_marker writes reserved the space.

This VM's kernel refuses the function tracer, so no trace here has real
function records: the recording (tests/ftrace/mk-funcs.sh) writes fixed-size
markers, and this script rewrites those `ftrace:print` records in place into
the other ftrace events (their format files are in every trace.dat), with
ip/parent_ip taken from the file's own kallsyms, following a scripted call
sequence.  kallsyms is cut to the symbols around the ones used, so the file
stays small.  `trace-cmd report` on the result is the reference.

With --graph, the markers become ftrace funcgraph_entry / funcgraph_exit
records instead (a scripted call tree per CPU: leaves, nested calls,
returns whose pid or function does not match the entry, durations across
trace-cmd's overhead marks, an address kallsyms does not cover).

Usage: mk-funcs.py [--graph] IN.dat OUT.dat
"""
import re
import struct
import sys


def main(inp, out, graph=False):
    b = bytearray(open(inp, 'rb').read())
    assert b[:10] == b'\x17\x08\x44tracing', 'not a trace.dat'
    at = b.index(b'\0', 10)
    assert b[10:at] == b'6', 'v6 only'
    at += 1
    e = '>' if b[at] == 1 else '<'
    long_size = b[at + 1]
    assert long_size == 8, '64-bit only'
    page_size = struct.unpack_from(e + 'I', b, at + 2)[0]
    at += 6

    def u(fmt, o):
        return struct.unpack_from(e + fmt, b, o)[0]

    for name in (b'header_page\0', b'header_event\0'):
        assert b[at:at + len(name)] == name
        at += len(name)
        at += 8 + u('Q', at)
    ids = {}
    n = u('I', at)
    at += 4
    for _ in range(n):
        size = u('Q', at)
        text = bytes(b[at + 8:at + 8 + size]).decode()
        m = re.search(r'name: (\S+)\nID: (\d+)', text)
        ids[m.group(1)] = int(m.group(2))
        at += 8 + size
    nsys = u('I', at)
    at += 4
    for _ in range(nsys):
        at = b.index(b'\0', at) + 1
        n = u('I', at)
        at += 4
        for _ in range(n):
            at += 8 + u('Q', at)
    kall_at = at
    ksize = u('I', at)
    lines = bytes(b[at + 4:at + 4 + ksize]).decode().splitlines(True)
    rest_at = at + 4 + ksize
    at = rest_at
    at += 4 + u('I', at)  # printk formats
    at += 8 + u('Q', at)  # saved cmdlines
    ncpus = u('I', at)
    at += 4
    assert b[at:at + 10] == b'options  \0'
    at += 10
    while True:
        oid = u('H', at)
        at += 2
        if oid == 0:
            break
        at += 4 + u('I', at)
    assert b[at:at + 10] == b'flyrecord\0', 'flyrecord only'
    at += 10
    table_at = at
    cpus = [struct.unpack_from(e + 'QQ', b, at + 16 * i) for i in range(ncpus)]

    # kallsyms: a run of consecutive text symbols (sorted by address) of
    # ordinary names, the ones the records will use
    syms = []
    for ln in lines:
        f = ln.split()
        if len(f) >= 3 and f[1] in 'tT' and len(f) == 3 and re.fullmatch(r'[a-z_][a-z0-9_]*', f[2]) \
                and not f[2].startswith('__pfx_'):
            syms.append((int(f[0], 16), ln))
    syms.sort()
    syms = [s for s in syms if s[0]]
    assert len(syms) > 5000, 'kallsyms without addresses?'
    mid = len(syms) // 2
    keep = syms[mid:mid + 40]
    addr = [a for a, _ in keep]
    name = [ln.split()[2] for _, ln in keep]

    # the call sequence: (ip, parent_ip) as indexes into `keep`, with an
    # offset into the function; -1 = an address no symbol covers
    seq = []
    for k in range(6):
        seq += [(1, 0), (2, 1), (3, 2), (4, 3), (5, 2), (6, 1), (7, 0), (3, 2), (8, 9 + k), (10, 8)]
    seq += [(-1, 2), (2, -1), (12, 12), (13, 12), (14, 13), (13, 12)]

    def where(k, off):
        if k < 0:
            return 0x1234  # below every kept symbol
        return addr[k] + off

    want = ids['print']
    kinds = ['function'] * 5 + ['func_repeats', 'function', 'raw_data']
    # graph mode: (kind, function, depth, duration ns, pid delta)
    tree = [('E', 1, 0, 0, 0), ('E', 2, 1, 0, 0), ('X', 2, 1, 5123, 0),
            ('E', 3, 1, 0, 0), ('E', 4, 2, 0, 0), ('X', 4, 2, 15000, 0),
            ('X', 3, 1, 150000, 0),
            ('E', 5, 1, 0, 0), ('X', 5, 1, 1500000, 1),
            ('E', 6, 1, 0, 0), ('X', 7, 1, 2000000000, 0),
            ('E', -1, 2, 0, 0), ('X', -1, 2, 12345678901, 0),
            ('E', 8, 3, 0, 0), ('X', 8, 3, 999, 0),
            ('X', 1, 0, 1000000, 0)]
    n_done = 0
    pid0 = None
    order = []  # (time, cpu, data offset) of every record
    for cpu, (off, size) in enumerate(cpus):
        for page in range(off, off + size, page_size):
            commit = u('Q', page + 8) & ((1 << 27) - 1)
            ts = u('Q', page)
            p = page + 16
            end = p + commit
            while p < end:
                h = u('I', p)
                tl = h & 31
                if tl == 29:
                    if (h >> 5) == 0:
                        break
                    ts += h >> 5
                    p += 4 + u('I', p + 4)
                    continue
                if tl == 30:
                    ts += (u('I', p + 4) << 27) | (h >> 5)
                    p += 8
                    continue
                if tl == 31:
                    ts = (u('I', p + 4) << 27) | (h >> 5)
                    p += 8
                    continue
                ts += h >> 5
                if tl == 0:
                    dlen = u('I', p + 4) - 4
                    data = p + 8
                else:
                    dlen = tl * 4
                    data = p + 4
                nxt = data + dlen
                order.append((ts, cpu, data, dlen))
                if u('H', data) == want and dlen >= 40 and graph:
                    i = n_done
                    n_done += 1
                    kind, fk, depth, dur, dpid = tree[i % len(tree)]
                    # one pid on both CPUs (the first record's), so that an
                    # entry's next record can be its return on the other CPU
                    if pid0 is None:
                        pid0 = u('i', data + 4)
                    struct.pack_into(e + 'i', b, data + 4, pid0 + dpid)
                    struct.pack_into(e + 'QI', b, data + 8, where(fk, 0), depth)
                    if kind == 'E':
                        struct.pack_into(e + 'H', b, data, ids['funcgraph_entry'])
                    else:
                        struct.pack_into(e + 'H', b, data, ids['funcgraph_exit'])
                        call = 1000000 * (i + 1)
                        struct.pack_into(e + 'IQQ', b, data + 20, i % 3, call, call + dur)
                elif u('H', data) == want and dlen >= 40:
                    i = n_done
                    n_done += 1
                    kind = kinds[i % len(kinds)]
                    ip_k, par_k = seq[i % len(seq)]
                    ip = where(ip_k, 4 * (i % 3))
                    parent = where(par_k, 6 + (i % 5))
                    struct.pack_into(e + 'H', b, data, ids[kind])
                    if kind == 'raw_data':
                        struct.pack_into(e + 'I', b, data + 8, 0xfeed0000 + i)
                        for j in range(12, dlen):
                            b[data + j] = (i * 7 + j) & 0xff
                    else:
                        struct.pack_into(e + 'QQ', b, data + 8, ip, parent)
                        if kind == 'func_repeats':
                            struct.pack_into(e + 'HHI', b, data + 24, 2 + i % 7, i % 2, 1000 * (i + 1))
                p = nxt
    assert n_done >= len(seq), 'only %d print records' % n_done
    if graph:
        # returns on the other CPU: an entry whose next record (in time) is on
        # the other CPU gets that record rewritten into its return
        order.sort(key=lambda r: (r[0], r[1]))
        made = 0
        for (t0, c0, d0, l0), (t1, c1, d1, l1) in zip(order, order[1:]):
            if made < 3 and c0 != c1 and u('H', d0) == ids['funcgraph_entry'] and l1 >= 40:
                struct.pack_into(e + 'H', b, d1, ids['funcgraph_exit'])
                struct.pack_into(e + 'i', b, d1 + 4, u('i', d0 + 4))
                struct.pack_into(e + 'QI', b, d1 + 8, u('Q', d0 + 8), u('I', d0 + 16))
                struct.pack_into(e + 'IQQ', b, d1 + 20, 0, 5000, 5000 + 4321)
                made += 1
        assert made, 'no entry followed by a record of the other CPU'
        print('%d returns on the other CPU' % made)

    # write it with the cut kallsyms (offsets of the CPU data moved)
    kall = ''.join(ln for _, ln in keep).encode()
    head = bytes(b[:kall_at]) + struct.pack(e + 'I', len(kall)) + kall + bytes(b[rest_at:table_at])
    data_at = len(head) + 16 * ncpus
    data_at = (data_at + page_size - 1) // page_size * page_size
    table = b''
    blob = b''
    for off, size in cpus:
        table += struct.pack(e + 'QQ', data_at + len(blob) if size else 0, size)
        blob += bytes(b[off:off + size])
    with open(out, 'wb') as f:
        f.write(head + table + b'\0' * (data_at - len(head) - len(table)) + blob)
    print('%d records rewritten, %d symbols kept' % (n_done, len(keep)))


if __name__ == '__main__':
    a = sys.argv[1:]
    g = bool(a) and a[0] == '--graph'
    if g:
        a = a[1:]
    if len(a) != 2:
        sys.exit(__doc__)
    main(a[0], a[1], g)
