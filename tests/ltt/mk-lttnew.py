#!/usr/bin/env python3
"""Hand-made new LTT format traces (seed 001), written byte by byte from the
seed's description and docs/formats/ltt.md, without traceio's code.

usage: mk-lttnew.py OUTDIR little|big ILP32|LP64 [--freq]

Writes OUTDIR (a trace) and OUTDIR.expect (the events as `traceio print
--clock-seconds --no-delta` prints them).  The facilities cover every type
(int, uint, float, string, enum, array, sequence, struct, union, typeref to
a facility type and to a builtin type) and every size word; two versions
of facility "core" (same name, different checksums); a time_heartbeat
after a gap of more than 2^32 cycles; 256-byte blocks so that events span
several blocks; events in cpu/0, cpu/1 and control/processes.  The
eventdefs are written as the seed writes XML (bare attribute values, an
unclosed typeref); checksums are CRC-32 of the canonical text
(docs/formats/ltt.md).  Without --freq, time is interpolated per block.
"""
import os
import struct
import sys
import zlib

out, endian, arch = sys.argv[1], sys.argv[2], sys.argv[3]
freq = '--freq' in sys.argv
BE = endian == 'big'
E = '>' if BE else '<'
LONG = 8 if arch == 'LP64' else 4
MEDIUM = 4
BLOCK = 256

# ---------------------------------------------------------------- types
# (kind, attrs dict, children): children are fields [(name, type)] for
# struct/union, [elem] for array/sequence, labels for enum.


def T(kind, children=None, **a):
    return (kind, a, children or [])


point = T('struct', [('x', T('int', size='short')), ('y', T('float', size='medium'))])
sched = T('struct', [
    ('prev', T('uint', size='medium')),
    ('next', T('int', size='long')),
    ('state', T('enum', ['Running', 'Waiting', 'Zombie'], size='1')),
    ('name', T('string')),
    ('when', T('typeref', name='timespec')),
    ('load', T('float', size='8')),
])
net = T('struct', [
    ('addr', T('array', [T('uint', size='1')], size='4')),
    ('opts', T('sequence', [T('uint', size='2')], lengthsize='short')),
    ('body', T('union', [('a', T('uint', size='4')), ('b', T('string'))], typecodesize='1')),
    ('flags', T('uint', size='4', format='0x%x')),
    ('at', T('typeref', name='point')),
    ('big', T('int', size='8')),
])
comm = T('struct', [('comm', T('array', [T('int', size='1', format='%c')], size='8'))])
core1 = ('core', 'Core events', [('sched', 'A context switch', sched), ('net', None, net), ('comm', None, comm)],
         [('point', point)])
core2 = ('core', None, [('sched', None, T('struct', [('prev', T('uint', size='2'))]))], [])
process = T('struct', [
    ('name', T('string')), ('pid', T('uint', size='4')), ('ppid', T('uint', size='4')),
    ('state', T('enum', ['Running', 'WaitInterruptible', 'WaitUninterruptible', 'Zombie', 'Traced', 'Paging'],
                size='4')),
])
proc = ('proc', None, [('process', 'Existing process', process)], [])


def esc(s, attr):
    s = s.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')
    return s.replace('"', '&quot;') if attr else s


ATTR_ORDER = {'int': ['size', 'format'], 'uint': ['size', 'format'], 'float': ['size', 'format'],
              'string': ['size', 'format'], 'enum': ['size', 'format'], 'typeref': ['name'],
              'array': ['size'], 'sequence': ['lengthsize'], 'struct': [], 'union': ['typecodesize']}


def canon_type(t, ind):
    k, a, ch = t
    p = '  ' * ind
    attrs = ''.join(' %s="%s"' % (n, esc(a[n], True)) for n in ATTR_ORDER[k] if n in a)
    if k in ('int', 'uint', 'float', 'string', 'typeref'):
        return '%s<%s%s/>\n' % (p, k, attrs)
    if k == 'enum':
        return '%s<enum%s>%s</enum>\n' % (p, attrs, ' '.join(ch))
    if k in ('array', 'sequence'):
        return '%s<%s%s>\n%s%s</%s>\n' % (p, k, attrs, canon_type(ch[0], ind + 1), p, k)
    s = '%s<%s%s>\n' % (p, k, attrs)
    for n, ft in ch:
        s += '%s  <field name="%s">\n%s%s  </field>\n' % (p, esc(n, True), canon_type(ft, ind + 2), p)
    return s + '%s</%s>\n' % (p, k)


def canon(f):
    name, desc, events, types = f
    s = '<facility name="%s">\n' % name
    if desc:
        s += '  <description>%s</description>\n' % esc(desc, False)
    for n, d, t in events:
        s += '  <event name="%s">\n' % n
        if d:
            s += '    <description>%s</description>\n' % esc(d, False)
        s += canon_type(t, 2) + '  </event>\n'
    for n, t in types:
        s += '  <type name="%s">\n%s  </type>\n' % (n, canon_type(t, 2))
    return s + '</facility>\n'


def sloppy_type(t):
    """The seed's own style: bare attribute values, typerefs left open."""
    k, a, ch = t
    attrs = ''.join(' %s=%s' % (n, a[n] if ' ' not in a[n] and '%' not in a[n] else '"%s"' % a[n])
                    for n in ATTR_ORDER[k] if n in a)
    if k == 'typeref':
        return '<typeref%s>' % attrs
    if k in ('int', 'uint', 'float', 'string'):
        return '<%s%s/>' % (k, attrs)
    if k == 'enum':
        return '<enum%s>\n  %s\n</enum>' % (attrs, ' '.join(ch))
    if k in ('array', 'sequence'):
        return '<%s%s>%s</%s>' % (k, attrs, sloppy_type(ch[0]), k)
    return '<%s%s>\n%s</%s>' % (k, attrs, ''.join('  <field name=%s>%s</field>\n' % (n, sloppy_type(ft))
                                                for n, ft in ch), k)


def sloppy(f):
    name, desc, events, types = f
    s = '<facility name=%s>\n' % name
    if desc:
        s += '<description>%s</description>\n' % desc
    for n, d, t in events:
        s += '<event name=%s>\n' % n + ('<description>%s</description>\n' % d if d else '') + sloppy_type(t) + '\n</event>\n'
    for n, t in types:
        s += '<type name=%s>\n%s\n</type>\n' % (n, sloppy_type(t))
    return s + '</facility>\n'


def checksum(f):
    return zlib.crc32(canon(f).encode())


# ---------------------------------------------------------------- values

def size_of(word):
    return {'short': 2, 'medium': MEDIUM, 'long': LONG}.get(word) or int(word)


def enc(t, v, named):
    k, a, ch = t
    if k == 'typeref':
        if a['name'] == 'timespec':
            return struct.pack(E + 'II', *v)
        return enc(named[a['name']], v, named)
    if k in ('int', 'uint', 'enum'):
        n = size_of(a['size'])
        fmt = {1: 'b', 2: 'h', 4: 'i', 8: 'q'}[n]
        return struct.pack(E + (fmt if k == 'int' else fmt.upper()), v)
    if k == 'float':
        return struct.pack(E + ('f' if size_of(a['size']) == 4 else 'd'), v)
    if k == 'string':
        return v.encode() + b'\0'
    if k == 'array':
        return b''.join(enc(ch[0], x, named) for x in v)
    if k == 'sequence':
        n = size_of(a['lengthsize'])
        return struct.pack(E + {1: 'B', 2: 'H', 4: 'I', 8: 'Q'}[n], len(v)) + b''.join(enc(ch[0], x, named) for x in v)
    if k == 'union':
        tag, x = v
        n = size_of(a['typecodesize'])
        return struct.pack(E + {1: 'B', 2: 'H', 4: 'I', 8: 'Q'}[n], tag) + enc(ch[tag][1], x, named)
    return b''.join(enc(ft, v[n], named) for n, ft in ch)


def fmt_float(x):
    return '%g' % x


def show(t, v, named):
    """The value as the babeltrace-style printer shows it."""
    k, a, ch = t
    if k == 'typeref':
        if a['name'] == 'timespec':
            return '{ seconds = %d, nanoseconds = %d }' % v
        return show(named[a['name']], v, named)
    if k == 'enum':
        return '( "%s" : container = %d )' % (ch[v], v)
    if k in ('int', 'uint'):
        if a.get('format') == '0x%x':
            return '0x%X' % v
        return '%d' % v
    if k == 'float':
        return fmt_float(v)
    if k == 'string':
        return '"%s"' % v
    if k == 'array' and ch[0][1].get('format') == '%c':
        return '"%s"' % bytes(v).split(b'\0')[0].decode()
    if k == 'array':
        return '[ %s ]' % ', '.join('[%d] = %s' % (i, show(ch[0], x, named)) for i, x in enumerate(v))
    if k == 'sequence':
        els = '[ %s ]' % ', '.join('[%d] = %s' % (i, show(ch[0], x, named)) for i, x in enumerate(v)) if v else '[ ]'
        return '{ length = %d, elements = %s }' % (len(v), els)
    if k == 'union':
        tag, x = v
        return '{ tag = %d, value = { %s } }' % (tag, show(ch[tag][1], x, named))
    return '{ %s }' % ', '.join('%s = %s' % (n, show(ft, v[n], named)) for n, ft in ch)


# ---------------------------------------------------------------- tracefiles

BASES = {('core', 1): 10, ('core', 2): 20, ('proc', 1): 30}
FAC = {('core', 1): core1, ('core', 2): core2, ('proc', 1): proc}
T0 = 1200000000  # seconds of the first block_start
C0 = 5000        # its cycle count; time = T0 s + (cycles - C0) ns


def ts_of(cyc):
    ns = T0 * 1000000000 + (cyc - C0)
    return ns // 1000000000, ns % 1000000000


def frame(eid, delta, cyc, block_id=None):
    s, n = ts_of(cyc)
    b = struct.pack(E + 'HIIIQ', eid, delta, s, n, cyc)
    return b + (struct.pack(E + 'I', block_id) if block_id is not None else b'')


def tracefile(events):
    """events: [(cycles, id, payload bytes)] in time order -> blocks."""
    blocks = []
    i = 0
    while i < len(events):
        start = events[i][0]
        blk = bytearray(frame(1, 0, start, len(blocks)))
        base = last = start
        while i < len(events):
            cyc, eid, data = events[i]
            hb = b''
            if cyc - base > 0xFFFFFFFF:
                hb = frame(3, (cyc - base) & 0xFFFFFFFF, cyc)
            ev_base = cyc if hb else base
            ev = struct.pack(E + 'HI', eid, cyc - ev_base) + data
            if len(blk) + len(hb) + len(ev) + 26 + 4 > BLOCK:
                break
            blk += hb + ev
            base, last = ev_base, cyc
            i += 1
        end_at = len(blk)
        blk += frame(2, last - base, last, len(blocks))
        blk += b'\0' * (BLOCK - 4 - len(blk)) + struct.pack(E + 'I', end_at)
        assert len(blk) == BLOCK
        blocks.append(bytes(blk))
    return b''.join(blocks)


named = {'point': point}
lines = []  # (cycles, order, text)
files = {'cpu/0': [], 'cpu/1': [], 'control/processes': []}


def emit(fname, cyc, fac, idx, v):
    name, _, events, _ = FAC[fac]
    ename, _, t = events[idx]
    files[fname].append((cyc, BASES[fac] + idx, enc(t, v, named)))
    s, n = ts_of(cyc)
    lines.append((cyc, len(lines), '[%d.%09d] %s: %s' % (s, n, ename, show(t, v, named))))


emit('control/processes', 5000, ('proc', 1), 0, {'name': 'init', 'pid': 1, 'ppid': 0, 'state': 0})
emit('control/processes', 5001, ('proc', 1), 0, {'name': 'kthreadd', 'pid': 2, 'ppid': 0, 'state': 1})
cyc = 5010
for k in range(12):
    emit('cpu/0', cyc, ('core', 1), 0, {'prev': k, 'next': -k * 1000003, 'state': k % 3, 'name': 'task%d' % k,
                                       'when': (1000 + k, 999999999 - k), 'load': k / 4.0})
    cyc += 1000 * k + 7
    emit('cpu/0', cyc, ('core', 1), 1, {'addr': [10, 0, 0, k], 'opts': list(range(k % 4)),
                                       'body': (k % 2, 4000000000 + k if k % 2 == 0 else 'text %d' % k),
                                       'flags': 0xdead0000 + k, 'at': {'x': -k, 'y': 0.5 * k},
                                       'big': -(1 << 62) + k})
    cyc += 3
    if k == 6:
        cyc += (1 << 32) + 12345  # a gap only a time_heartbeat can bridge
emit('cpu/0', cyc, ('core', 1), 2, {'comm': list(b'bash\0\0\0\0')})
emit('cpu/0', cyc + 1, ('core', 1), 2, {'comm': list(b'exactly8')})
for k in range(5):
    emit('cpu/1', 5020 + 100 * k, ('core', 2), 0, {'prev': 60000 + k})

# control/facilities: facility_load {name, checksum, base_code}
fl = []
for key in [('core', 1), ('core', 2), ('proc', 1)]:
    f = FAC[key]
    fl.append((5000, 0, f[0].encode() + b'\0' + struct.pack(E + 'II', checksum(f), BASES[key])))

os.makedirs(out + '/eventdefs', exist_ok=True)
os.makedirs(out + '/info', exist_ok=True)
os.makedirs(out + '/control', exist_ok=True)
os.makedirs(out + '/cpu', exist_ok=True)
with open(out + '/eventdefs/core.xml', 'w') as f:
    f.write(sloppy(core1) + '\n' + canon(core2))
with open(out + '/eventdefs/proc.xml', 'w') as f:
    f.write(sloppy(proc))
with open(out + '/info/system.xml', 'w') as f:
    f.write('<system \n node_name="vaucluse"\n domainname="polymtl.ca" \n cpu=2\n arch_size="%s" \n endian="%s" \n'
            ' kernel_name="Linux" \n ltt_major_version="2"\n ltt_minor_version="0"\n ltt_block_size="%d"%s\n>\n'
            'Some comments about the system\n</system>\n'
            % (arch, endian, BLOCK, '\n cycle_frequency="1000000000" clock_offset_s="%d" clock_offset="%d" clock_origin="unix"'
               % (T0, -C0) if freq else ''))
with open(out + '/info/bookmarks.xml', 'w') as f:
    f.write('<bookmarks>\n  <location name=boot cpu=0 start_time=1200000000.000000010 end_time=1200000000.5>'
            'Boot &amp; login</location>\n  <location name=spike cycle=5030>A spike</location>\n</bookmarks>\n')
with open(out + '/control/facilities', 'wb') as f:
    f.write(tracefile(fl))
for name, evs in files.items():
    with open(out + '/' + name, 'wb') as f:
        f.write(tracefile(evs))
with open(out + '.expect', 'w') as f:
    for _, _, text in sorted(lines):
        f.write(text + '\n')
