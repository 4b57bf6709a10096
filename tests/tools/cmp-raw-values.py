#!/usr/bin/python3
"""Every payload value of a trace.dat as traceio's model has it (`traceio
print --style json`) against the raw fields `trace-cmd report -R` prints for
the same events (in the same order: tests/ftrace/test-live.sh checks that
the texts agree first).

usage: cmp-raw-values.py TIO TRACE

Integers: equal modulo 2^64, or modulo 2^8/2^16/2^32 when trace-cmd's
value fits that width (-R prints a field with its print fmt's conversion:
%d shows an unsigned field negative, a narrower conversion its low bits; a
small signed field is not sign-extended); printed in another base (hex
without 0x, octal: compared the same way) or as a symbol: counted apart.
Arrays: trace-cmd's ARRAY[..] bytes against the model's list of integers
laid out little-endian at its element width.  Strings: equal; when
trace-cmd shows them as ARRAY (not printable), equal to its bytes up to the
first NUL (invalid UTF-8 as U+FFFD); a BLOB (hex in JSON) equal to its bytes.  Prints the counts and the
first differences; exits 1 on a difference.
"""
import json
import re
import subprocess
import sys
from collections import Counter

LINE = re.compile(r'^\s*(?:\S+: )?.*?-\d+\s+\[(\d+)\]\s*[\d.]+: (\S+):\s(.*)$')
FIELD = re.compile(r' (?=[A-Za-z_][A-Za-z_0-9]*=)')


def num(s):
    try:
        return int(s, 0) if s.startswith(('0x', '-0x')) else int(s)
    except ValueError:
        return None


def same_int(v, j):
    n = num(v)
    if n is not None and (n - j) % (1 << 64) == 0:
        return 'int'
    # -R prints a field with its print fmt's conversion when it has one: an
    # unsigned field under %d shows negative, a signed one under %x as its bits
    # (the conversion's width too: equal in the printed value's width)
    # (in 8 or 16 bits only for a value of that width: 256 shown as 0 is a difference)
    fits = lambda x, w: -(1 << (w - 1)) <= x < (1 << w)
    same_in = lambda x, w: fits(x, w) and (x - j) % (1 << w) == 0 and (w >= 32 or fits(j, w))
    if n is not None and any(same_in(n, w) for w in (8, 16, 32)):
        return 'narrow'
    for base in (16, 8):
        try:
            x = int(v, base)
        except ValueError:
            continue
        if any(same_in(x, w) for w in (8, 16, 32, 64)):
            return 'other base'
    if (v == '' and j == 0) or (len(v) == 1 and ord(v) == j % 256):
        return 'char'  # a u8 of a probe's char type prints as the character
    if (v == '(nil)' and j == 0) or re.match(r'^[A-Za-z_.]', v):
        return 'symbol'
    return None


def main(tio, trace):
    env = {'TZ': 'UTC', 'LC_ALL': 'C', 'PATH': '/usr/sbin:/usr/bin:/sbin:/bin'}
    rep = subprocess.run(['trace-cmd', 'report', '-R', trace], capture_output=True, env=env).stdout
    js = subprocess.run([tio, 'print', '--style', 'json', trace], capture_output=True, env=env).stdout
    lines = [m for m in (LINE.match(l) for l in rep.decode('utf-8', 'replace').splitlines()) if m]
    events = [e for e in (json.loads(l) for l in js.decode().splitlines()) if e.get('type') == 'event']
    counts, bad, first = Counter(), Counter(), {}
    if len(lines) != len(events):
        print('report -R: %d events, traceio: %d' % (len(lines), len(events)))
        return 1
    for m, e in zip(lines, events):
        name = m.group(2)
        if name != e['event_class']:
            bad['event order'] += 1
            continue
        pay = e.get('payload') or {}
        for p in FIELD.split(m.group(3).strip()):
            if '=' not in p:
                continue
            k, v = p.split('=', 1)
            if k not in pay:
                continue
            j = pay[k]
            how = None
            if isinstance(j, bool):
                how = 'int' if num(v) == int(j) else None
            elif isinstance(j, int):
                how = same_int(v, j)
            elif isinstance(j, str):
                if v.startswith('ARRAY['):
                    # text trace-cmd shows as bytes (not printable): the text up to the first NUL
                    bs = bytes(int(x, 16) for x in v[6:].rstrip(']').split(', ') if x)
                    if bs and bs.hex() == j:
                        how = 'blob'  # the model's BLOBs are hex in JSON
                    elif not bs:
                        how = 'not compared'  # a zero-size trailing array: the model has the record's rest
                    else:
                        how = 'array text' if bs.split(b'\0')[0].decode('utf-8', 'replace') == j else None
                elif v == j:
                    how = 'string'
                elif re.fullmatch(r'\d+', v) and re.fullmatch(r'[0-9a-f]*', j):
                    how = 'not compared'  # a __data_loc cpumask_t: -R prints the location word
                else:
                    how = None
            elif isinstance(j, list) and v.startswith('ARRAY['):
                bs = bytes(int(x, 16) for x in v[6:].rstrip(']').split(', ') if x)
                if j and all(isinstance(x, int) for x in j) and len(bs) % len(j) == 0:
                    w = len(bs) // len(j)
                    if bs == b''.join((x % (1 << (8 * w))).to_bytes(w, 'little') for x in j):
                        how = 'array'
                else:
                    how = 'array' if not j and not bs else None
            else:
                how = 'not compared'
            if how:
                counts[how] += 1
            else:
                bad[name + '.' + k] += 1
                first.setdefault(name + '.' + k, (v[:60], str(j)[:60]))
    print('%d events; values: %s' % (len(events), ', '.join('%s %d' % kv for kv in sorted(counts.items()))))
    for k, n in bad.most_common(10):
        print('  %d differ: %s (report -R %r, traceio %r)' % (n, k, *first.get(k, ('', ''))))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(*sys.argv[1:3]) if len(sys.argv) >= 3 else __doc__)
