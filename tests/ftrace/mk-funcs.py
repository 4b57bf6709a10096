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
import os
import re
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tools'))
import tdv6  # noqa: E402


def main(inp, out, graph=False):
    v = tdv6.V6(bytearray(open(inp, 'rb').read()))
    assert v.long_size == 8, '64-bit only'
    b, e, u = v.b, v.e, v.u
    ids = {}
    for text in v.ftrace:
        m = re.search(r'name: (\S+)\nID: (\d+)', text)
        ids[m.group(1)] = int(m.group(2))
    lines = v.kallsyms.splitlines(True)

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
    for ts, cpu, data, dlen in v.records():
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
    v.write(out, bytes(b[:v.kall_at]) + struct.pack(e + 'I', len(kall)) + kall + bytes(b[v.rest_at:v.table_at]))
    print('%d records rewritten, %d symbols kept' % (n_done, len(keep)))


if __name__ == '__main__':
    a = sys.argv[1:]
    g = bool(a) and a[0] == '--graph'
    if g:
        a = a[1:]
    if len(a) != 2:
        sys.exit(__doc__)
    main(a[0], a[1], g)

